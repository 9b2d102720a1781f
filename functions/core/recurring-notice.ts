import { closedChargeEvent } from "./events";
import { type ChargeAttempt, OPEN_ATTEMPT_STATUSES, type Subscription } from "./model";
import type { BillingRepository, ChargeGateway, Clock } from "./ports";
import { applyInput } from "./subscription-machine";

export interface RecurringNoticeDeps {
  readonly repository: BillingRepository;
  readonly gateway: ChargeGateway;
  readonly clock: Clock;
}

/** What the gateway's recurring_noti_url call says; untrusted until retrieve confirms it. */
export interface RecurringNotice {
  readonly subscription_id: string;
  readonly order_id: string;
}

export type RecurringNoticeResult =
  | { readonly kind: "recorded"; readonly attempt: ChargeAttempt }
  | { readonly kind: "duplicate" }
  | { readonly kind: "ignored"; readonly reason: string }
  /** Retrieve could not answer: the caller should let the notice be redelivered. */
  | { readonly kind: "retry"; readonly reason: string };

/**
 * A charge the gateway made on a registered recurring plan: confirmed by retrieve, recorded once in the ledger as the
 * subscription's current period, and the subscription moves to the next period. A notice for an order without a
 * sale records a declined attempt and marks the subscription past_due.
 */
export async function recordRecurringCharge(
  notice: RecurringNotice,
  deps: RecurringNoticeDeps,
): Promise<RecurringNoticeResult> {
  const subscription = await deps.repository.getSubscription(notice.subscription_id);
  if (subscription?.billing_mode !== "recurring")
    return { kind: "ignored", reason: "no gateway-managed subscription" };
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const recorded = ledger.find((line) => line.order_id === notice.order_id);
  if (recorded !== undefined) return duplicateOf(subscription, recorded, deps);

  const { amount, currency } = subscription.plan;
  const found = await deps.gateway.findOrder({ order_id: notice.order_id, amount, currency });
  if (found.kind === "unavailable" || found.kind === "unknown")
    return { kind: "retry", reason: found.reason };
  const sold = found.kind === "success" && found.value.status === "SALE";
  const at = deps.clock.now().toISOString();
  const attempt: ChargeAttempt = {
    subscription_id: subscription.subscription_id,
    period: subscription.period,
    attempt: subscription.attempt,
    order_id: notice.order_id,
    amount,
    currency,
    status: sold ? "succeeded" : "declined",
    transaction_id: found.kind === "success" ? found.value.transaction_id : undefined,
    rescode: found.kind === "declined" || found.kind === "invalid" ? found.code : undefined,
    created_at: at,
    updated_at: at,
  };
  // The ledger line is written closed, announcing the charge; the money moved whatever the subscription's state.
  const claim = await deps.repository.claimAttempt(attempt, [closedChargeEvent(attempt, subscription)]);
  if (!claim.claimed) return duplicateOf(subscription, claim.existing, deps);
  await applyInput(subscription, { kind: "gateway_charge", attempt }, deps);
  return { kind: "recorded", attempt };
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
  if (!OPEN_ATTEMPT_STATUSES.includes(line.status))
    await applyInput(subscription, { kind: "gateway_charge", attempt: line }, deps);
  return { kind: "duplicate" };
}
