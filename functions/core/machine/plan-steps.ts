import type { Plan, Subscription } from "../base/model";
import type { RemovableSubscriptionField } from "../ports/billing-repository";
import {
  planChanges,
  planText,
  type Step,
  type SubscriptionInput,
  samePlan,
  stillPricedOn,
} from "./subscription-input";
import { refused, transition } from "./transition";

export const replacedPlan = (subscription: Subscription) =>
  `the proration was priced on a plan since replaced: the plan is ${planText(subscription.plan)}`;

/** What applying a paid plan change must still find, and what it clears: the pending change it pays for. */
interface PaidChange {
  readonly expect: { readonly pending_plan_order: string };
  readonly remove: readonly RemovableSubscriptionField[];
}

export const pendingPaidBy = (orderId: string): PaidChange => ({
  expect: { pending_plan_order: orderId },
  remove: ["pending_plan", "pending_plan_order"],
});

/**
 * A plan change that charges first: its plan waits until the proration is paid. Decided on the subscription as read
 * (the proration was computed from its plan and period), and the only plan change until it is settled.
 */
export function planChangeStarted(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "plan_change_started" }>,
  now: Date,
): Step {
  if (subscription.pending_plan_order !== undefined)
    return refused("a plan change is being paid for: repeat once it is settled");
  if (subscription.status !== "active")
    return refused(`a ${subscription.status} subscription owes no proration`);
  const { plan } = input;
  if (
    plan.currency !== subscription.plan.currency ||
    plan.interval_months !== subscription.plan.interval_months
  )
    return refused("a prorated change keeps the currency and the interval");
  if (!stillPricedOn(subscription, input.priced_on)) return refused(replacedPlan(subscription));
  // Every write expects the revision read; one taken again on a fresh read is decided again here, on what it holds.
  return transition(subscription, now, {
    expect: { period: subscription.period, pending_plan_order: null },
    set: { pending_plan: plan, pending_plan_order: input.order_id },
  });
}

/**
 * A new plan. Now: the amount from the next charge on (an interval change waits for the renewal: the paid period
 * keeps its length); any scheduled change is dropped. Next renewal: scheduled, shown as `scheduled_plan` until then.
 */
export function adjustPlan(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "adjust_plan" }>,
  now: Date,
  paid?: PaidChange,
): Step {
  const { plan } = input;
  if (plan.currency !== subscription.plan.currency) return refused("the currency cannot change");
  const same = (a: Plan | undefined) => a !== undefined && samePlan(a, plan);
  // A paid change applies over whatever was written since it started; any other is decided on the state as read.
  const expect = paid?.expect ?? { updated_at: subscription.updated_at };
  if (input.at === "now") {
    if (plan.interval_months !== subscription.plan.interval_months)
      return refused("an interval change takes effect at the next renewal");
    if (same(subscription.plan) && subscription.scheduled_plan === undefined && paid === undefined)
      return { kind: "unchanged" };
    const { credit } = input;
    if (credit !== undefined && (same(subscription.plan) || subscription.pending_credit !== undefined))
      return refused("a credit goes with a decrease, one at a time: repeat once the last one is sent");
    const dropped = subscription.scheduled_plan === undefined ? [] : (["scheduled_plan"] as const);
    const changed = [...planChanges(subscription.plan, plan), ...dropped];
    return transition(subscription, now, {
      expect: credit === undefined ? expect : { ...expect, "pending_credit.refund_id": null },
      set: {
        ...(same(subscription.plan) ? {} : { plan }),
        ...(credit === undefined ? {} : { pending_credit: credit }),
      },
      remove: [...dropped, ...(paid?.remove ?? [])],
      changed: changed.length === 0 ? undefined : changed,
    });
  }
  if (subscription.status === "pending") return refused("not active yet: adjust it now instead");
  if (subscription.billing_mode !== "token")
    return refused("a gateway-managed plan changes only its amount, at once");
  if (same(subscription.scheduled_plan)) return { kind: "unchanged" };
  // Scheduling the current plan undoes a scheduled change.
  if (same(subscription.plan))
    return subscription.scheduled_plan === undefined
      ? { kind: "unchanged" }
      : transition(subscription, now, {
          expect,
          set: {},
          remove: ["scheduled_plan"],
          changed: ["scheduled_plan"],
        });
  return transition(subscription, now, {
    expect,
    set: { scheduled_plan: plan },
    changed: ["scheduled_plan"],
  });
}
