import { isAdHocPeriod } from "../base/charge-kind";
import type { ChargeAttempt, PendingCredit, Plan, Subscription } from "../base/model";
import { fromCents, toCents } from "../base/money";
import { attemptKeyOf } from "../base/order-id";
import { chargedCents } from "../base/plan-price";
import { unusedPartCents } from "../base/proration";
import { applyPaidInput } from "../machine/apply-input";
import type { IdSource } from "../ports/clock";
import { balanceCents, type RefundDeps, type RefundOutcome, refundCharge } from "./refunds";

// A decrease made now with proration refund_now (README, Subscription lifecycle: adjust with refund_now) gives back
// the unused part of what the paid period was charged over the new plan. The credit is priced on the subscription as
// read and written with the new plan in one conditional write (`pending_credit`), so it exists if and only if the plan
// changed; its refund_id follows from the revision it was priced on, so whoever sends it — the request, or the attempt
// sweep once its lease passed — makes one refund. Once the refund is claimed, its own protocol settles it, and the
// subscription lets go of the credit.

export interface CreditDeps extends RefundDeps {
  readonly ids: Pick<IdSource, "refundIdFor">;
}

/** The paid period's charge a credit gives part of back: its last successful line. */
export const lastPaidCharge = (subscription: Subscription, ledger: readonly ChargeAttempt[]) =>
  ledger.findLast(
    (line) =>
      line.period === subscription.period - 1 && !isAdHocPeriod(line.period) && line.status === "succeeded",
  );

/**
 * The credit of a change from the subscription's plan to `plan` now: the old period charge's excess over the new one
 * (both less the discount running), for what is left of the paid period, rounded down to the minor unit and never more
 * than the paid charge's balance. Undefined when nothing goes back (an increase, no paid period running, a free one).
 */
export async function priceCredit(
  subscription: Subscription,
  plan: Plan,
  deps: CreditDeps,
): Promise<PendingCredit | undefined> {
  // Past due, the last paid period has ended: nothing of it is left to give back.
  if (subscription.period === 0) return undefined;
  const difference = chargedCents(subscription.plan, subscription) - chargedCents(plan, subscription);
  if (difference <= 0) return undefined;
  const charge = lastPaidCharge(
    subscription,
    await deps.repository.listAttempts(subscription.subscription_id),
  );
  if (charge?.transaction_id === undefined) return undefined;
  const now = deps.clock.now();
  const unused = unusedPartCents(
    subscription,
    charge.period,
    { cents: difference, currency: charge.currency },
    now,
  );
  const cents = Math.min(unused, balanceCents(charge));
  if (cents <= 0) return undefined;
  return {
    refund_id: deps.ids.refundIdFor(`plan-credit:${subscription.revision ?? 0}`, charge.order_id),
    order_id: charge.order_id,
    amount: fromCents(cents, charge.currency),
    prorated_from: fromCents(difference, charge.currency),
    lease_until: new Date(now.getTime() + deps.policy.inflightWindowMs).toISOString(),
  };
}

/**
 * Sends a subscription's pending credit as a refund of its charge (refunds.ts: claimed under its refund_id, held on
 * the charge, sent, settled by retrieve when unread), then clears it. However often or concurrently it runs, one
 * refund is made. Undefined: no credit is pending.
 */
export async function sendPendingCredit(
  subscription: Subscription,
  deps: RefundDeps,
): Promise<RefundOutcome | undefined> {
  const credit = subscription.pending_credit;
  const charge = credit && attemptKeyOf(credit.order_id);
  if (credit === undefined || charge === undefined) return undefined;
  const outcome = await refundCharge(
    {
      charge,
      refund_id: credit.refund_id,
      amount: credit.amount,
      prorated_from: credit.prorated_from,
      reason: "plan decreased: the unused part of the paid period",
    },
    deps,
  );
  await applyPaidInput(subscription, () => ({ kind: "credit_claimed", refund_id: credit.refund_id }), deps);
  return outcome;
}

/** The full-period differences already credited on a charge (sent, or still pending on its subscription). */
export async function creditedFrom(subscription: Subscription, charge: ChargeAttempt, deps: RefundDeps) {
  const refunds = await deps.repository.listRefunds(subscription.subscription_id);
  const credits = refunds.filter(
    (refund) => refund.order_id === charge.order_id && refund.status !== "failed",
  );
  const pending = subscription.pending_credit;
  const unsent =
    pending?.order_id === charge.order_id && !credits.some((refund) => refund.refund_id === pending.refund_id)
      ? toCents(pending.prorated_from)
      : 0;
  return credits.reduce((sum, refund) => sum + toCents(refund.prorated_from ?? "0"), unsent);
}
