import { subscriptionPeriod } from "./billing-period";
import type { Subscription } from "./model";
import { fromCents, minorUnitCents, toCents } from "./money";
import { type RefundDeps, type RefundOutcome, refundCharge } from "./refunds";

/** What a cancel now gives back of the last paid period: nothing, its unused part, or all of it. */
export type CancelRefund = "none" | "prorated" | "full";

/**
 * Refunds the last paid period's charge on a cancel now (README, Subscription lifecycle): in full, or the part of the
 * period not yet used at `now` (rounded down to the currency's minor unit), never more than its refundable balance.
 * The refund_id follows from the charge, so repeating the cancel never refunds twice. Undefined: nothing to refund.
 */
export async function refundUnusedPeriod(
  subscription: Subscription,
  mode: CancelRefund,
  deps: RefundDeps,
): Promise<RefundOutcome | undefined> {
  if (mode === "none" || subscription.period === 0) return undefined;
  const lastPaid = subscription.period - 1;
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const charge = ledger.findLast((line) => line.period === lastPaid && line.status === "succeeded");
  if (charge === undefined) return undefined;
  const balance = toCents(charge.amount) - toCents(charge.refunded_amount ?? "0");
  const cents =
    mode === "full" ? balance : Math.min(balance, unusedCents(subscription, lastPaid, charge, deps));
  if (cents <= 0) return undefined;
  return refundCharge(
    {
      charge,
      refund_id: `${charge.order_id}-X`,
      amount: fromCents(cents),
      reason: `canceled, ${mode} refund`,
    },
    deps,
  );
}

/** The charge's share of the period still to run at now, rounded down to the currency's minor unit. */
function unusedCents(
  subscription: Subscription,
  index: number,
  charge: { readonly amount: string; readonly currency: string },
  deps: Pick<RefundDeps, "clock">,
): number {
  const period = subscriptionPeriod(subscription, index);
  if (period === undefined) return 0;
  const length = period.end.getTime() - period.start.getTime();
  const left = Math.min(length, Math.max(0, period.end.getTime() - deps.clock.now().getTime()));
  const unit = minorUnitCents(charge.currency);
  return Math.floor((toCents(charge.amount) * left) / length / unit) * unit;
}
