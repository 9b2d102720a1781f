import { type Plan, planDue, type Subscription } from "./model";
import { fromCents, MAX_AMOUNT_CENTS, toCents } from "./money";

// What a plan costs per period: its unit amount times its seats. Every charge, proration and page reads it here.

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

/** Why a plan's period total cannot be charged (more than the gateway's largest amount), or undefined. */
export const totalProblem = (plan: Pick<Plan, "amount" | "quantity">): string | undefined =>
  planTotalCents(plan) > MAX_AMOUNT_CENTS
    ? `the amount times the quantity must be at most ${fromCents(MAX_AMOUNT_CENTS, "USD")}`
    : undefined;

/** What the subscription's current period is charged: its due plan's total. */
export const periodCharge = (
  subscription: Subscription,
): { readonly amount: string; readonly currency: string } => {
  const plan = planDue(subscription);
  return { amount: planTotal(plan), currency: plan.currency };
};
