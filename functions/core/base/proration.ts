import { type PeriodAnchor, subscriptionPeriod } from "./billing-period";
import { minorUnitCents, scaledCents } from "./money";

/**
 * The share of `cents` for what is left at `now` of a subscription's period `index`, rounded down to the currency's
 * minor unit: what a cancel gives back of a paid period, what an upgrade owes for the rest of it. 0 once it ended.
 */
export function unusedPartCents(
  subscription: PeriodAnchor,
  index: number,
  charge: { readonly cents: number; readonly currency: string },
  now: Date,
): number {
  const period = subscriptionPeriod(subscription, index);
  if (period === undefined || charge.cents <= 0) return 0;
  const length = period.end.getTime() - period.start.getTime();
  const left = Math.min(length, Math.max(0, period.end.getTime() - now.getTime()));
  const unit = minorUnitCents(charge.currency);
  return Math.floor(scaledCents(charge.cents, left, length) / unit) * unit;
}
