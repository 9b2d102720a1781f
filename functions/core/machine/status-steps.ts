import { periodStartOf } from "../base/billing-period";
import type { Subscription } from "../base/model";
import type { Step, SubscriptionInput } from "./subscription-input";
import { position, refused, transition } from "./transition";

/**
 * No charges while paused: only an active subscription billed here pauses, and not while its period is due (the
 * charge run is charging it; pause after). The gateway charges its own plans on its own schedule.
 */
export function pause(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "pause" }>,
  now: Date,
): Step {
  if (subscription.billing_mode !== "token")
    return refused("a gateway-managed recurring plan cannot be paused at the gateway: cancel it instead");
  if (subscription.status === "paused")
    return input.resume_at === subscription.resume_at ? { kind: "unchanged" } : refused("already paused");
  if (subscription.status !== "active")
    return refused(`a ${subscription.status} subscription cannot be paused`);
  if (subscription.cancel_at !== undefined) return refused("a cancel is scheduled: undo it first");
  const due = subscription.next_charge_at;
  if (due === undefined || Date.parse(due) <= now.getTime())
    return refused("the current period is being charged: pause once it is paid");
  if (input.resume_at !== undefined && Date.parse(input.resume_at) <= now.getTime())
    return refused("resume_at must be in the future");
  return transition(subscription, now, {
    expect: { ...position(subscription), updated_at: subscription.updated_at },
    // While paused the due index holds the automatic resume (if any): the charge run resumes it then.
    set: { status: "paused", resume_at: input.resume_at, next_charge_at: input.resume_at },
    remove: input.resume_at === undefined ? ["next_charge_at"] : [],
  });
}

export function resume(subscription: Subscription, now: Date): Step {
  if (subscription.status !== "paused")
    return subscription.status === "active" ? { kind: "unchanged" } : refused("not paused");
  const start = periodStartOf(subscription, subscription.period);
  const ended = start.getTime() <= now.getTime();
  return transition(subscription, now, {
    expect: { ...position(subscription), updated_at: subscription.updated_at },
    set: {
      status: "active",
      next_charge_at: (ended ? now : start).toISOString(),
      ...(ended ? { anchor_at: now.toISOString(), anchor_period: subscription.period } : {}),
    },
    remove: ["resume_at"],
  });
}

/**
 * Access runs until the paid period ends (the next charge's instant), when the charge run cancels instead of
 * charging. Only an active subscription billed here has a paid period running: a past_due one has nothing left to
 * run out (cancel it now), and the gateway charges its own plans on its own schedule.
 */
export function cancelAtPeriodEnd(subscription: Subscription, now: Date): Step {
  if (subscription.billing_mode !== "token")
    return refused("a gateway-managed plan cannot be canceled at period end: cancel it now");
  if (!["active", "trialing"].includes(subscription.status) || subscription.next_charge_at === undefined)
    return refused(`a ${subscription.status} subscription has no paid period running: cancel it now`);
  if (subscription.cancel_at !== undefined) return { kind: "unchanged" };
  return transition(subscription, now, {
    expect: { updated_at: subscription.updated_at },
    set: { cancel_at: subscription.next_charge_at },
  });
}
