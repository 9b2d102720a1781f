import { SUCCESS_RESCODE } from "../functions/gateway/schemas/primitives";
import { fail, ok, type StoreResult } from "./ledger-core";
import type { ChargebackError, ChargebackRecord } from "./payment-store";
import { SUCCESS_RESMSG } from "./replies";
import type { RouteContext } from "./routes";

/** What triggering a chargeback needs: a route handler's context, or the same services kept by a clock task. */
export type ChargebackDeps = Pick<RouteContext, "ledger" | "clock" | "deliver" | "merchants">;

export const DEFAULT_CHARGEBACK_REASON = "Cardholder dispute";

export interface TriggeredChargeback {
  readonly chargeback: ChargebackRecord;
  /** Where the CHARGEBACK webhook went; undefined when the merchant has no chargeback URL (nothing sent). */
  readonly webhookUrl: string | undefined;
}

/**
 * The CHARGEBACK webhook body. The seed shows only {rescode, resmsg, type, data}; the content of data is the
 * sandbox's choice: the charged-back payment, the amount taken back, the reason and the chargeback's own id and
 * date (YYYYMMDDHHMMSS, the gateway's zone).
 */
export function chargebackWebhookBody(chargeback: ChargebackRecord) {
  return {
    rescode: SUCCESS_RESCODE,
    resmsg: SUCCESS_RESMSG,
    type: "CHARGEBACK",
    data: {
      mid: chargeback.mid,
      transaction_id: chargeback.transactionId,
      chargeback_id: chargeback.chargebackId,
      order_id: chargeback.orderId,
      amount: chargeback.amount,
      currency: chargeback.currency,
      reason: chargeback.reason,
      chargeback_date: chargeback.chargebackDate,
    },
  };
}

/**
 * Charges back the balance of a SALE (ledger revision bumped) and sends the signed CHARGEBACK webhook to the
 * merchant's chargeback URL if one is set; the Deliverer re-sends it hourly by the sandbox clock, up to 3 times,
 * until the reply is rescode 0000. Returns at once: the delivery runs in the background (await
 * `deliveries.settled()` to see it). Refused: unknown merchant or transaction, not a SALE with a balance, twice.
 */
export function triggerChargeback(
  deps: ChargebackDeps,
  mid: string,
  transactionId: string,
  reason: string = DEFAULT_CHARGEBACK_REASON,
): StoreResult<TriggeredChargeback, ChargebackError> {
  const merchant = deps.merchants.byMid(mid);
  if (!merchant) return fail("transaction_not_found");
  const recorded = deps.ledger.payments.recordChargeback(mid, transactionId, reason, deps.clock.now());
  if (!recorded.ok) return recorded;
  const { chargeback } = recorded.value;
  const webhookUrl = deps.ledger.webhooks.chargebackUrl(mid);
  if (webhookUrl !== undefined)
    void deps.deliver.webhook(merchant, webhookUrl, chargebackWebhookBody(chargeback));
  return ok({ chargeback, webhookUrl });
}
