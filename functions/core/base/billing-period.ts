/**
 * Billing periods: interval 1–36 months anchored on the sign-up instant, with end-of-month clamping measured from the
 * anchor day each time (Jan 31 → Feb 28/29 → Mar 31), so a short month never shifts later periods. UTC.
 */

export const MIN_INTERVAL_MONTHS = 1;
/** Token billing: we charge each period, so any whole number of months up to three years (12 is the annual plan). */
export const MAX_INTERVAL_MONTHS = 36;
/** A plan the gateway charges itself (billing "recurring") repeats every 1 to 10 months: the gateway's own limit. */
export const MAX_GATEWAY_PLAN_INTERVAL_MONTHS = 10;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** The anchor moved by whole months, its day clamped to the target month's length, its time of day kept. */
export function addMonthsClamped(anchor: Date, months: number): Date {
  const totalMonths = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const monthIndex = totalMonths - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, monthIndex));
  return new Date(
    Date.UTC(
      year,
      monthIndex,
      day,
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

export interface BillingPeriod {
  /** 0 for the first period (charged at sign-up), then 1, 2, … */
  readonly index: number;
  readonly start: Date;
  /** Exclusive: the start of the next period. */
  readonly end: Date;
}

export function assertInterval(intervalMonths: number): void {
  if (
    !Number.isInteger(intervalMonths) ||
    intervalMonths < MIN_INTERVAL_MONTHS ||
    intervalMonths > MAX_INTERVAL_MONTHS
  ) {
    throw new RangeError(
      `interval_months must be an integer from ${MIN_INTERVAL_MONTHS} to ${MAX_INTERVAL_MONTHS}`,
    );
  }
}

/** Period `index` of a plan anchored at `anchor`. */
export function billingPeriod(anchor: Date, intervalMonths: number, index: number): BillingPeriod {
  assertInterval(intervalMonths);
  if (!Number.isInteger(index) || index < 0)
    throw new RangeError("period index must be a non-negative integer");
  return {
    index,
    start: addMonthsClamped(anchor, index * intervalMonths),
    end: addMonthsClamped(anchor, (index + 1) * intervalMonths),
  };
}

/** The index of the period that contains `at` (the last period started at or before it). */
export function periodIndexAt(anchor: Date, intervalMonths: number, at: Date): number {
  assertInterval(intervalMonths);
  if (at < anchor) return 0;
  const monthsApart =
    (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (at.getUTCMonth() - anchor.getUTCMonth());
  let index = Math.max(0, Math.floor(monthsApart / intervalMonths));
  // The month arithmetic may overshoot by one when `at` falls before the clamped day of its month.
  while (index > 0 && addMonthsClamped(anchor, index * intervalMonths) > at) index -= 1;
  while (addMonthsClamped(anchor, (index + 1) * intervalMonths) <= at) index += 1;
  return index;
}

/** What places a subscription's periods: its anchor, which a resume after a pause moves to a later period. */
export interface PeriodAnchor {
  readonly anchor_at: string;
  /** The period that starts at anchor_at: 0 until a resume re-anchors the schedule. */
  readonly anchor_period?: number;
  readonly plan: { readonly interval_months: number };
}

/** Period `index` of a subscription, or undefined for a period before its anchor (before a pause it resumed from). */
export function subscriptionPeriod(subscription: PeriodAnchor, index: number): BillingPeriod | undefined {
  const anchorPeriod = subscription.anchor_period ?? 0;
  if (index < anchorPeriod) return undefined;
  const period = billingPeriod(
    new Date(subscription.anchor_at),
    subscription.plan.interval_months,
    index - anchorPeriod,
  );
  return { ...period, index };
}

/**
 * When period `index` of a subscription starts on its current schedule: a period before the anchor (a trial, or one
 * before a resume) is placed where the current interval would have put it.
 */
export function periodStartOf(subscription: PeriodAnchor, index: number): Date {
  assertInterval(subscription.plan.interval_months);
  const offset = index - (subscription.anchor_period ?? 0);
  return addMonthsClamped(new Date(subscription.anchor_at), offset * subscription.plan.interval_months);
}
