import { periodStartOf } from "../base/billing-period";
import type { ChargePolicy } from "../base/charge-policy";
import type { ChargeAttempt, Subscription } from "../base/model";
import { periodCharge } from "../base/plan-price";
import type { RemovableSubscriptionField, SubscriptionUpdate } from "../ports/billing-repository";
import { discountUsed } from "./discount-steps";
import { planChanges, type Step, type SubscriptionInput } from "./subscription-input";
import { type Changed, chargeExpectation, position, refused, transition } from "./transition";

const DAY_MS = 86_400_000;

/**
 * A past_due subscription's next dunning retry, brought forward to now: the charge worker then charges the current
 * attempt (one of the schedule's retries). Only while a retry is scheduled: a dead card waits for a new one.
 */
export function retryNow(subscription: Subscription, now: Date): Step {
  if (subscription.status !== "past_due" || subscription.billing_mode !== "token")
    return refused("nothing is overdue here");
  const due = subscription.next_charge_at;
  if (due === undefined) return refused("the card on file cannot pay: a new card is needed");
  if (Date.parse(due) <= now.getTime()) return { kind: "unchanged" };
  return transition(subscription, now, {
    expect: { ...position(subscription), updated_at: subscription.updated_at },
    set: { next_charge_at: now.toISOString() },
  });
}

/**
 * A charge that was in flight when the subscription paused closed afterwards: paid, its period counts (the next one
 * is charged after the resume); refused or voided, the next attempt gets a new order_id. Still paused either way.
 */
export function chargeWhilePaused(subscription: Subscription, attempt: ChargeAttempt, now: Date): Step {
  const expect = chargeExpectation(subscription, attempt);
  if (attempt.status !== "succeeded")
    return transition(subscription, now, { expect, set: { attempt: attempt.attempt + 1 } });
  const { set, remove, changed } = paidThrough(subscription, attempt);
  return transition(subscription, now, { expect, set, remove, changed });
}

/** Active at period 1; our charge run bills period 1 under token billing, the gateway does under recurring billing. */
export function firstPayment(
  subscription: Subscription,
  paid: Extract<SubscriptionInput, { kind: "first_payment" }>,
  now: Date,
): Step {
  // The sign-up's charge is the first its discount takes part in; a trial's verification is none.
  const used = discountUsed(
    subscription,
    subscription.trial_end === undefined ? subscription.discount?.coupon_id : undefined,
  );
  return transition(subscription, now, {
    expect: { period: 0 },
    remove: used.remove,
    changed: used.changed.length === 0 ? undefined : [...used.changed],
    set: {
      ...used.set,
      status: subscription.trial_end === undefined ? "active" : "trialing",
      period: 1,
      token_id: paid.token_id,
      card: paid.card,
      recurring_id: paid.recurring_id,
      next_charge_at:
        subscription.billing_mode === "token" ? periodStartOf(subscription, 1).toISOString() : undefined,
    },
  });
}

/**
 * The next period, back to active. The charge run bills the next period only under token billing, and only with a
 * token: a sign-up whose outcome was settled by retrieve never learned its token, so it waits for a card instead.
 */
export function chargePaid(subscription: Subscription, attempt: ChargeAttempt, now: Date): Step {
  const expect = chargeExpectation(subscription, attempt);
  const paid = paidThrough(subscription, attempt);
  if (subscription.billing_mode === "token" && subscription.token_id === undefined) {
    return transition(subscription, now, {
      ...paid,
      expect,
      set: { ...paid.set, status: "past_due", status_reason: "card_required" },
      remove: [...paid.remove, "next_charge_at", "dunning"],
    });
  }
  const billedHere = subscription.billing_mode === "token";
  return transition(subscription, now, {
    ...paid,
    expect,
    set: {
      ...paid.set,
      status: "active",
      ...(billedHere ? { next_charge_at: paid.nextPeriodStart.toISOString() } : {}),
    },
    remove: [
      ...paid.remove,
      "dunning",
      "status_reason",
      ...(billedHere ? [] : (["next_charge_at"] as const)),
    ],
  });
}

/**
 * Period `attempt.period` is paid: the next one is current. A plan change scheduled for this renewal takes effect if
 * the period was charged at its total (a charge already in flight when it was scheduled leaves it for the next),
 * re-anchoring the schedule at the paid period when the interval changes.
 */
export function paidThrough(subscription: Subscription, attempt: ChargeAttempt) {
  const planned = planAfterPayment(subscription, attempt);
  const used = discountUsed(subscription, attempt.coupon_id);
  return {
    set: { ...planned.set, ...used.set },
    remove: [...planned.remove, ...used.remove],
    nextPeriodStart: planned.nextPeriodStart,
    changed: planned.changed && [...planned.changed, ...used.changed],
  };
}

/** The plan after period `attempt.period` is paid: the next period, and a scheduled change that takes effect. */
function planAfterPayment(subscription: Subscription, attempt: ChargeAttempt) {
  const advance = { period: attempt.period + 1, attempt: 0 };
  const scheduled = subscription.scheduled_plan;
  if (scheduled === undefined || periodCharge(subscription).amount !== attempt.amount)
    return {
      set: advance,
      remove: [] as RemovableSubscriptionField[],
      nextPeriodStart: periodStartOf(subscription, advance.period),
      changed: paidChanges(subscription, advance),
    };
  const reanchor =
    scheduled.interval_months === subscription.plan.interval_months
      ? {}
      : {
          anchor_at: periodStartOf(subscription, attempt.period).toISOString(),
          anchor_period: attempt.period,
        };
  const set = { ...advance, plan: scheduled, ...reanchor };
  return {
    set,
    remove: ["scheduled_plan"] as RemovableSubscriptionField[],
    nextPeriodStart: periodStartOf({ ...subscription, ...set }, advance.period),
    changed: paidChanges(subscription, set),
  };
}

/**
 * What a charge's write changes that a SaaS keys on: a paid period moves `current_period` on (a renewal announces it,
 * the period's end being where access runs to), with the plan when a change scheduled for it took effect.
 */
function paidChanges(subscription: Subscription, set: SubscriptionUpdate["set"]): Changed | undefined {
  if (set.period === undefined) return undefined;
  return [...(set.plan === undefined ? [] : planChanges(subscription.plan, set.plan)), "current_period"];
}

/**
 * Dunning: the next step of the schedule, past_due from the first refusal, canceled after the last; a dead token or
 * a dead card goes straight to past_due and waits for a new card.
 */
export function chargeRefused(
  subscription: Subscription,
  attempt: ChargeAttempt,
  now: Date,
  policy: ChargePolicy,
): Step {
  const expect = chargeExpectation(subscription, attempt);
  const next = attempt.attempt + 1;
  const dead = attempt.dead_end;
  if (dead)
    return transition(subscription, now, {
      expect,
      set: { status: "past_due", status_reason: dead, attempt: next },
      remove: ["next_charge_at"],
    });
  const step = (subscription.dunning?.step ?? 0) + 1;
  const waitDays = policy.dunningScheduleDays[step - 1];
  if (waitDays === undefined)
    return transition(subscription, now, {
      expect,
      set: {
        status: policy.dunningFinalAction === "cancel" ? "canceled" : "past_due",
        status_reason: "dunning_exhausted",
        attempt: next,
      },
      remove: ["next_charge_at"],
    });
  return transition(subscription, now, {
    expect,
    set: {
      status: "past_due",
      status_reason: "payment_declined",
      attempt: next,
      next_charge_at: new Date(now.getTime() + waitDays * DAY_MS).toISOString(),
      dunning: {
        step,
        reason: attempt.status === "failed" ? "gateway_rejected_request" : "declined",
        rescode: attempt.rescode,
        decline_reason: attempt.decline_reason,
        since: subscription.dunning?.since ?? now.toISOString(),
      },
    },
  });
}

/** The gateway's own plan: a sale moves to the next period (active again), a refusal leaves it past_due. */
export function gatewayCharge(subscription: Subscription, attempt: ChargeAttempt, now: Date): Step {
  const expect = chargeExpectation(subscription, attempt);
  return attempt.status === "succeeded"
    ? transition(subscription, now, {
        expect,
        set: { period: attempt.period + 1, attempt: 0, status: "active" },
        remove: ["status_reason"],
        changed: ["current_period"],
      })
    : transition(subscription, now, {
        expect,
        set: { attempt: attempt.attempt + 1, status: "past_due", status_reason: "recurring_charge_failed" },
      });
}

/**
 * A charge that was in flight when the cancel was scheduled closed afterwards. Paid: the new period runs out, then
 * the cancel takes effect (cancel_at follows the next charge's instant). Refused: nothing more is charged, so the
 * subscription ends now instead of entering dunning.
 */
export function keepScheduledCancel(subscription: Subscription, closed: Step, now: Date): Step {
  if (closed.kind !== "transition") return closed;
  const { set, expect, remove } = closed.update;
  const nextChargeAt = closed.after.next_charge_at;
  if (closed.after.status === "active" && nextChargeAt !== undefined)
    return transition(subscription, now, {
      expect,
      set: { ...set, cancel_at: nextChargeAt },
      remove,
      changed: paidChanges(subscription, set),
    });
  return transition(subscription, now, {
    expect,
    set: {
      status: "canceled",
      status_reason: "canceled_at_period_end",
      ...(set.period === undefined ? {} : { period: set.period }),
      ...(set.attempt === undefined ? {} : { attempt: set.attempt }),
    },
    remove: ["next_charge_at", "cancel_at", "dunning"],
  });
}
