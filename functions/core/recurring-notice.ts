import type { ChargeAttempt } from "./model";
import type { BillingRepository, ChargeGateway, Clock } from "./ports";

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
  if (ledger.some((line) => line.order_id === notice.order_id)) return { kind: "duplicate" };

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
  const claim = await deps.repository.claimAttempt(attempt);
  if (!claim.claimed) return { kind: "duplicate" };
  const expect = { period: subscription.period, attempt: subscription.attempt };
  const facts = {
    subscription_id: subscription.subscription_id,
    period: attempt.period,
    attempt: attempt.attempt,
    order_id: attempt.order_id,
    amount,
    currency,
  };
  await deps.repository.updateSubscription(
    subscription.subscription_id,
    sold
      ? {
          expect,
          set: { period: subscription.period + 1, attempt: 0, status: "active", updated_at: at },
          remove: ["status_reason"],
          events: [{ type: "charge.succeeded", ...facts, transaction_id: attempt.transaction_id }],
        }
      : {
          expect,
          set: {
            attempt: subscription.attempt + 1,
            status: "past_due",
            status_reason: "recurring_charge_failed",
            updated_at: at,
          },
          events: [
            { type: "charge.failed", ...facts, reason: "recurring_charge_failed", rescode: attempt.rescode },
            {
              type: "subscription.past_due",
              subscription_id: subscription.subscription_id,
              reason: "recurring_charge_failed",
            },
          ],
        },
  );
  return { kind: "recorded", attempt };
}
