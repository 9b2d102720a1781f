import type { ChargePolicy } from "../base/charge-policy";
import { closedChargeEvent } from "../base/events";
import { type ChargeAttempt, OPEN_ATTEMPT_STATUSES, type Subscription } from "../base/model";
import { chargeOf } from "../base/plan-price";
import { finalizeClosedLine } from "../invoicing/line-close";
import { applyInput } from "../machine/apply-input";
import type { BillingRepository } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { ChargeGateway } from "../ports/payment-gateway";

export interface RecurringNoticeDeps {
  readonly repository: BillingRepository;
  readonly gateway: ChargeGateway;
  readonly clock: Clock;
  /** How the charge's invoice is issued. */
  readonly policy: Pick<ChargePolicy, "invoicing">;
}

/**
 * What the gateway's recurring_noti_url call says (its secret already matched, see receive-recurring-notice); the
 * charge it reports is untrusted until retrieve confirms it.
 */
export interface RecurringNotice {
  readonly subscription_id: string;
  readonly order_id: string;
  /** The plan the body names, when it names one: it must be the subscription's. */
  readonly recurring_id?: string;
}

export type RecurringNoticeResult =
  | { readonly kind: "recorded"; readonly attempt: ChargeAttempt }
  | { readonly kind: "duplicate" }
  | { readonly kind: "ignored"; readonly reason: string }
  /** Retrieve could not answer: the caller should let the notice be redelivered. */
  | { readonly kind: "retry"; readonly reason: string };

const ignored = (reason: string): RecurringNoticeResult => ({ kind: "ignored", reason });

/**
 * A charge the gateway made on a registered recurring plan (README, Merchant API: the webhook routes): recorded once in the ledger
 * as the subscription's current period, and the subscription moves to the next period — only when retrieve shows a
 * sale of this plan's amount and currency for the order, and only if no other line holds that transaction (each
 * gateway transaction is credited to one ledger line in the whole table). A notice retrieve does not confirm (no
 * transaction, a refused one, another amount) changes nothing.
 */
export async function recordRecurringCharge(
  notice: RecurringNotice,
  deps: RecurringNoticeDeps,
): Promise<RecurringNoticeResult> {
  const subscription = await deps.repository.getSubscription(notice.subscription_id);
  if (subscription?.billing_mode !== "recurring") return ignored("no gateway-managed subscription");
  if (notice.recurring_id !== undefined && notice.recurring_id !== subscription.recurring_id)
    return ignored("the notice names another plan");
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const recorded = ledger.find((line) => line.order_id === notice.order_id);
  if (recorded !== undefined) return duplicateOf(subscription, recorded, deps);

  const charge = chargeOf(subscription.plan, undefined, subscription.tax_rate);
  const { amount, currency } = charge;
  const found = await deps.gateway.findOrder({ order_id: notice.order_id, amount, currency });
  if (found.kind === "unavailable" || found.kind === "unknown")
    return { kind: "retry", reason: found.reason };
  const sale = found.kind === "success" ? found.value : undefined;
  if (sale?.state !== "paid" || sale.transaction_id === undefined)
    return ignored("retrieve shows no sale for the order");
  if (!isSaleOfPlan(sale, subscription)) return ignored("the sale is not of this plan's amount and currency");
  const at = deps.clock.now().toISOString();
  const attempt: ChargeAttempt = {
    subscription_id: subscription.subscription_id,
    period: subscription.period,
    attempt: subscription.attempt,
    order_id: notice.order_id,
    ...charge,
    status: "succeeded",
    transaction_id: sale.transaction_id,
    created_at: at,
    updated_at: at,
  };
  const credited = await deps.repository.claimTransaction(sale.transaction_id, attempt);
  if (!credited.claimed) return ignored("the transaction is credited to another ledger line");
  // The ledger line is written closed, announcing the charge; the money moved whatever the subscription's state.
  const claim = await deps.repository.claimAttempt(attempt, [closedChargeEvent(attempt, subscription)]);
  if (!claim.claimed) return duplicateOf(subscription, claim.existing, deps);
  await finalizeClosedLine(subscription, attempt, deps);
  await applyInput(subscription, { kind: "gateway_charge", attempt }, deps);
  return { kind: "recorded", attempt };
}

/** Retrieve found the plan's sale: its amount and currency, when the answer states them. */
function isSaleOfPlan(
  sale: { readonly amount?: string; readonly currency?: string },
  subscription: Subscription,
): boolean {
  const { amount, currency } = chargeOf(subscription.plan, undefined, subscription.tax_rate);
  // Compared as numbers: the gateway may write 19.9 for 19.90 (both decimals parse to the same double).
  const sameAmount = sale.amount === undefined || Number(sale.amount) === Number(amount);
  return sameAmount && (sale.currency === undefined || sale.currency === currency);
}

/**
 * A notice already in the ledger. If the subscription has not moved past that line (a crash between the ledger write
 * and the subscription's), it moves on now; the state machine refuses anything else.
 */
async function duplicateOf(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: RecurringNoticeDeps,
): Promise<RecurringNoticeResult> {
  if (OPEN_ATTEMPT_STATUSES.includes(line.status)) return { kind: "duplicate" };
  await finalizeClosedLine(subscription, line, deps);
  await applyInput(subscription, { kind: "gateway_charge", attempt: line }, deps);
  return { kind: "duplicate" };
}
