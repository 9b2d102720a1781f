import { periodStartOf } from "../../core/base/billing-period";
import type { AddedTaxRate, Plan, Subscription } from "../../core/base/model";
import { toCents } from "../../core/base/money";
import { periodCharge, planTotal, quantityOf } from "../../core/base/plan-price";
import { dayText, moneyText, PAGE_TEXT, type PageLang } from "./page-text";

// What a subscription costs, as pages and mails tell the customer: the price per interval with its seats, a coupon
// and how long it lasts, and what a charge was after its discount. Amounts come from plan-price, which every charge
// is priced by, so what the customer reads is what is charged.

/**
 * A plan's price per interval: its total, with seats what makes it, and a tax added on top
 * ("$59.70 every month, 3 seats × $19.90, plus VAT 20%").
 */
export function planPriceText(plan: Plan, lang: PageLang, taxRate?: AddedTaxRate): string {
  const text = PAGE_TEXT[lang];
  const seats = quantityOf(plan);
  return [
    text.price(moneyText(planTotal(plan), plan.currency, lang), plan.interval_months),
    ...(seats === 1 ? [] : [text.seats(seats, moneyText(plan.amount, plan.currency, lang))]),
    ...(taxRate === undefined ? [] : [text.taxAdded(taxRate.name, taxRate.percent)]),
  ].join(", ");
}

/** A charge's amount, and what a coupon took off it when it did ("$47.76 ($11.94 off)"). */
export function chargedText(
  charge: { readonly amount: string; readonly currency: string; readonly discount?: string },
  lang: PageLang,
): string {
  const amount = moneyText(charge.amount, charge.currency, lang);
  if (charge.discount === undefined || toCents(charge.discount) === 0) return amount;
  return `${amount} (${PAGE_TEXT[lang].off(moneyText(charge.discount, charge.currency, lang))})`;
}

/** The next period charge's amount after any discount. */
export const nextChargeAmountText = (subscription: Subscription, lang: PageLang): string => {
  const charge = periodCharge(subscription);
  return moneyText(charge.amount, charge.currency, lang);
};

const percentText = (basisPoints: number, lang: PageLang) =>
  new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 2 }).format(basisPoints / 10_000);

/**
 * The day a coupon that runs out takes off its last charge, on the current schedule; undefined when that is the next
 * charge, when it never runs out, or when the schedule may still move (not active or trialing, or a new interval
 * waiting for the next renewal).
 */
function lastDiscountedAt(subscription: Subscription): string | undefined {
  const { discount, status, plan, scheduled_plan: scheduled } = subscription;
  const left = discount?.charges_left;
  if (left === undefined || left === 1 || (status !== "active" && status !== "trialing")) return undefined;
  if (scheduled !== undefined && scheduled.interval_months !== plan.interval_months) return undefined;
  return periodStartOf(subscription, subscription.period + left - 1).toISOString();
}

/**
 * A subscription's coupon as the customer reads it: its code (else its id), what it takes off the next period
 * charge, and for how long ("LAUNCH20: −$8.96 (20% off, 2 more charges, the last on June 1, 2027)"). Before the
 * first payment its charges are counted from that one. Undefined without a coupon.
 */
export function discountText(subscription: Subscription, lang: PageLang): string | undefined {
  const { discount } = subscription;
  if (discount === undefined) return undefined;
  const text = PAGE_TEXT[lang];
  const charge = periodCharge(subscription);
  const last = lastDiscountedAt(subscription);
  const terms = [
    ...(discount.percent_off_bp === undefined ? [] : [text.off(percentText(discount.percent_off_bp, lang))]),
    text.discountLasts(discount.charges_left, subscription.status !== "pending"),
    ...(last === undefined ? [] : [text.lastDiscounted(dayText(last, lang))]),
  ];
  const off = moneyText(charge.discount ?? "0", charge.currency, lang);
  return `${discount.code ?? discount.coupon_id}: −${off} (${terms.join(", ")})`;
}
