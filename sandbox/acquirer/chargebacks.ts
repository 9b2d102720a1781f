import { fail, ok, type StoreResult } from "../state/ledger-core";
import type {
  ChargebackError,
  ChargebackRecord,
  ChargebackStatus,
  PaymentRecord,
} from "../state/payment-store";
import type { AcquirerContext } from "./acquirer";

/** What triggering a chargeback needs: a route handler's context, or the same context kept by a clock task. */
export type ChargebackDeps = Pick<
  AcquirerContext,
  "ledger" | "clock" | "scheduler" | "deliver" | "merchants"
>;

export const DEFAULT_CHARGEBACK_REASON = "Cardholder dispute";

/** How long the merchant has to answer a chargeback (the documented sample: reported 0320, deadline 0410). */
export const CHARGEBACK_ANSWER_DAYS = 21;

/** How a chargeback ends at its deadline when nobody decides otherwise: the money is taken. */
export type ChargebackOutcome = Exclude<ChargebackStatus, "REPORTED">;

export interface TriggeredChargeback {
  readonly chargeback: ChargebackRecord;
  /** Where the CHARGEBACK webhooks go; undefined when the merchant has no chargeback URL (nothing sent). */
  readonly webhookUrl: string | undefined;
}

const DAY_MS = 86_400_000;
const dayOf = (stamp: string | undefined) => stamp?.slice(0, 8) ?? "";

/**
 * The CHARGEBACK webhook as the real gateway sends it (README, The real gateway): no rescode and no chargeback id; the
 * charged-back payment's fields and the chargeback's lifecycle in `data`, dates as YYYYMMDD in the gateway's zone.
 * The same transaction's webhook comes again with each new status.
 */
export function chargebackWebhookBody(chargeback: ChargebackRecord, payment: PaymentRecord) {
  return {
    type: "CHARGEBACK",
    data: {
      mid: payment.mid,
      order_id: payment.orderId,
      transaction_id: payment.transactionId,
      currency: payment.currency,
      amount: payment.amount,
      payment_method: payment.paymentMethod ?? "",
      auth_code: payment.authCode ?? "",
      transaction_date: payment.transactionDate,
      pay_to: "SANDBOX",
      param1: payment.otherParam?.param1 ?? "",
      param2: payment.otherParam?.param2 ?? "",
      param3: payment.otherParam?.param3 ?? "",
      payer_authentication_flag: payment.payerAuthId === undefined ? "N" : "Y",
      refund_flag: payment.refundIds === undefined ? "N" : "Y",
      chargeback_status: chargeback.status,
      chargeback_reason: chargeback.reason,
      chargeback_report_date: dayOf(chargeback.chargebackDate),
      chargeback_deadline: chargeback.deadline,
      chargeback_resolve_date: dayOf(chargeback.resolvedDate),
      chargeback_deduct_date: dayOf(chargeback.deductedDate),
    },
  };
}

/** Sends the chargeback's current state to the merchant's chargeback URL, if one is set. */
function announce(deps: ChargebackDeps, chargeback: ChargebackRecord, payment: PaymentRecord) {
  const merchant = deps.merchants.byMid(chargeback.mid);
  const webhookUrl = deps.ledger.webhooks.chargebackUrl(chargeback.mid);
  if (merchant && webhookUrl !== undefined)
    void deps.deliver.webhook(merchant, webhookUrl, chargebackWebhookBody(chargeback, payment));
  return webhookUrl;
}

/**
 * Reports a chargeback of a SALE with a balance (ledger revision bumped) and sends the signed CHARGEBACK webhook;
 * at its deadline (sandbox clock) the chargeback ends with `outcome` — DEDUCTION takes the balance — and the webhook
 * is sent again with that status. Each delivery is re-sent hourly, up to 3 times, until the reply is rescode 0000.
 * Returns at once: deliveries run in the background (`deliveries.settled()`). Refused: unknown merchant or
 * transaction, not a SALE with a balance, a second chargeback.
 */
export function triggerChargeback(
  deps: ChargebackDeps,
  mid: string,
  transactionId: string,
  reason: string = DEFAULT_CHARGEBACK_REASON,
  outcome: ChargebackOutcome = "DEDUCTION",
): StoreResult<TriggeredChargeback, ChargebackError> {
  if (!deps.merchants.byMid(mid)) return fail("transaction_not_found");
  const now = deps.clock.now();
  const deadline = deps.ledger.date(new Date(now.getTime() + CHARGEBACK_ANSWER_DAYS * DAY_MS));
  const recorded = deps.ledger.payments.recordChargeback(mid, transactionId, reason, deadline, now);
  if (!recorded.ok) return recorded;
  const { chargeback, payment } = recorded.value;
  const webhookUrl = announce(deps, chargeback, payment);
  deps.scheduler.schedule(
    new Date(now.getTime() + CHARGEBACK_ANSWER_DAYS * DAY_MS),
    () => {
      const settled = deps.ledger.payments.settleChargeback(mid, transactionId, outcome, deps.clock.now());
      if (settled.ok) announce(deps, settled.value.chargeback, settled.value.payment);
    },
    `chargeback ${transactionId} ${outcome}`,
  );
  return ok({ chargeback, webhookUrl });
}
