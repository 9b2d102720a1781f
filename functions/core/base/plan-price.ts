import { isAdHocPeriod } from "./charge-kind";
import { addedTaxCents, includedTax } from "./documents";
import {
  type AddedTaxRate,
  type ChargeAttempt,
  type Discount,
  type Plan,
  planDue,
  type Subscription,
} from "./model";
import { fromCents, MAX_AMOUNT_CENTS, minorUnitCents, toCents } from "./money";

// What a plan costs per period: its unit amount times its seats, less the subscription's discount while it lasts.
// Every charge, proration and page reads it here.

/** Seats on the plan: absent means one. */
export const quantityOf = (plan: Pick<Plan, "quantity">): number => plan.quantity ?? 1;

/** One period of the plan in cents, before any discount. */
export const planTotalCents = (plan: Pick<Plan, "amount" | "quantity">): number =>
  toCents(plan.amount) * quantityOf(plan);

/**
 * One period of the plan as an amount, before any discount. One seat: the plan's amount as written (so a plan without
 * seats charges exactly the string it was given).
 */
export const planTotal = (plan: Pick<Plan, "amount" | "currency" | "quantity">): string =>
  quantityOf(plan) === 1 ? plan.amount : fromCents(planTotalCents(plan), plan.currency);

/** The statuses in which a subscription pays for its plan: what its monthly recurring revenue counts. */
export const PAYING_STATUSES: ReadonlySet<string> = new Set(["active", "past_due"]);

/**
 * A plan's monthly recurring revenue in hundredths, at list price (coupons aside): its period total ÷ the months a
 * period lasts (a fraction when it lasts several).
 */
export const monthlyCents = (plan: Pick<Plan, "amount" | "quantity" | "interval_months">): number =>
  planTotalCents(plan) / plan.interval_months;

/** Why a plan's period total cannot be charged (more than the gateway's largest amount), or undefined. */
export const totalProblem = (plan: Pick<Plan, "amount" | "quantity">): string | undefined =>
  planTotalCents(plan) > MAX_AMOUNT_CENTS
    ? `the amount times the quantity must be at most ${fromCents(MAX_AMOUNT_CENTS, "USD")}`
    : undefined;

const BASIS_POINTS = 10_000;

/**
 * What a discount takes off a total of `cents`, in the customer's favour: a percentage rounded up to the currency's
 * minor unit, an amount off whole; never more than the total.
 */
export function discountCents(
  cents: number,
  discount: Pick<Discount, "percent_off_bp" | "amount_off">,
  currency: string,
): number {
  if (discount.amount_off !== undefined) return Math.min(cents, toCents(discount.amount_off));
  const unit = minorUnitCents(currency);
  const off = BigInt(cents) * BigInt(discount.percent_off_bp ?? 0);
  const units = (off + BigInt(BASIS_POINTS * unit) - 1n) / BigInt(BASIS_POINTS * unit);
  return Math.min(cents, Number(units) * unit);
}

/**
 * A charge of one period: what is charged; when a discount took part of it, the total before and the part; when a tax
 * is added on top, that tax (the rest is the net).
 */
export interface PeriodCharge {
  readonly amount: string;
  readonly currency: string;
  readonly amount_before_discount?: string;
  readonly discount?: string;
  readonly coupon_id?: string;
  readonly tax?: ChargeAttempt["tax"];
}

/** A net of `cents` with `rate` added on top (none: the net as it is). */
function withAddedTax(cents: number, currency: string, rate: AddedTaxRate | undefined) {
  if (rate === undefined) return { amount: fromCents(cents, currency) };
  const tax = addedTaxCents(cents, currency, rate);
  return { amount: fromCents(cents + tax, currency), tax: { ...rate, amount: fromCents(tax, currency) } };
}

/**
 * What `plan` charges for a period with `discount` (none: its total) and `rate` added on top (none: nothing). The tax
 * is on what is left after the discount.
 */
export function chargeOf(plan: Plan, discount: Discount | undefined, rate?: AddedTaxRate): PeriodCharge {
  const { currency } = plan;
  if (discount === undefined)
    return rate === undefined
      ? { amount: planTotal(plan), currency }
      : { ...withAddedTax(planTotalCents(plan), currency, rate), currency };
  const cents = planTotalCents(plan);
  const off = discountCents(cents, discount, currency);
  return {
    ...withAddedTax(cents - off, currency, rate),
    currency,
    amount_before_discount: fromCents(cents, currency),
    discount: fromCents(off, currency),
    coupon_id: discount.coupon_id,
  };
}

/** What the subscription's current period is charged: its due plan, less its discount, with its tax on top. */
export const periodCharge = (subscription: Subscription): PeriodCharge =>
  chargeOf(planDue(subscription), subscription.discount, subscription.tax_rate);

/**
 * The cents a plan's period charges with the subscription's discount and tax (what a proration and a credit compare:
 * the tax goes with the difference).
 */
export const chargedCents = (plan: Plan, subscription: Pick<Subscription, "discount" | "tax_rate">): number =>
  toCents(chargeOf(plan, subscription.discount, subscription.tax_rate).amount);

/** What a gateway-managed plan charges each period: the plan's total with the subscription's tax on top. */
export const recurringAmount = (plan: Plan, rate: AddedTaxRate | undefined): string =>
  chargeOf(plan, undefined, rate).amount;

/**
 * The tax an amount given whole (an ad hoc charge, a proration) holds at the subscription's rate: its share of the
 * amount, so net and tax add up to what is charged. None without a rate.
 */
export function taxWithin(
  amount: string,
  currency: string,
  rate: AddedTaxRate | undefined,
): PeriodCharge["tax"] {
  if (rate === undefined) return undefined;
  return { ...rate, amount: includedTax(amount, currency, rate).amount };
}

/** What a line charges before any discount and any tax added on top. */
export const netBeforeDiscount = (
  line: Pick<ChargeAttempt, "amount" | "amount_before_discount" | "currency" | "tax">,
): string =>
  line.amount_before_discount ??
  (line.tax === undefined
    ? line.amount
    : fromCents(toCents(line.amount) - toCents(line.tax.amount), line.currency));

/** Whether a period charge moves no money (a whole discount): recorded paid, never sent to the gateway. */
export const isFreeCharge = (charge: { readonly amount: string }): boolean => toCents(charge.amount) === 0;

/** A period charge's line as a gateway shows it: what is sold, how many, at what unit price (they multiply to it). */
export interface ChargeItem {
  readonly name: string;
  readonly quantity: number;
  readonly unit_amount: string;
}

/** The name of what a plan written inline sells. */
const DEFAULT_ITEM_NAME = "Subscription";

/**
 * The line of a period charge of `plan`: its seats at the unit amount when they make the amount charged; otherwise (a
 * discount took part) one line of the amount charged, its name counting the seats.
 */
export function chargeItemOf(plan: Plan, charge: { readonly amount: string }): ChargeItem {
  const name = plan.product ?? DEFAULT_ITEM_NAME;
  const seats = quantityOf(plan);
  if (planTotalCents(plan) === toCents(charge.amount))
    return { name, quantity: seats, unit_amount: plan.amount };
  return { name: seats === 1 ? name : `${name} × ${seats}`, quantity: 1, unit_amount: charge.amount };
}

/** The line of a subscription's charge: a period's, at the plan due; none for a card's verification or an ad hoc charge. */
export const lineItemOf = (
  subscription: Subscription,
  line: Pick<ChargeAttempt, "amount" | "period" | "verification">,
): ChargeItem | undefined =>
  line.verification || isAdHocPeriod(line.period) ? undefined : chargeItemOf(planDue(subscription), line);
