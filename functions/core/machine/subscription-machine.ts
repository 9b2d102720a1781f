import { periodStartOf } from "../base/billing-period";
import type { ChargePolicy } from "../base/charge-policy";
import { type EventFacts, placedByWrite, subjectOf } from "../base/events";
import {
  CHECKOUT_EXPIRED,
  type ChargeAttempt,
  hasExpired,
  type MaskedCard,
  METADATA_MAX_KEYS,
  type Plan,
  type Subscription,
  subscriptionSchema,
} from "../base/model";
import type {
  BillingRepository,
  Clock,
  RemovableSubscriptionField,
  SubscriptionExpectation,
  SubscriptionUpdate,
} from "../ports/ports";

// The subscription's one state machine (README, Subscription lifecycle). Every change to a subscription is a pure step
// from (subscription, input, now) to a transition — the conditional update and the events it announces — or a
// refusal; `applyInput` is the one place that writes a transition, in one conditional write with its events. Each
// transition moves the subscription to its next revision, on which its events' sequence is built (events.ts). A
// charge's own event (charge.succeeded / charge.failed) belongs to its ledger line and is written with its close.
//
//   pending  ──first payment──▶ active ◀──renewal paid / gateway charge── past_due
//   pending  ──card verified (trial)──▶ trialing ──first period paid──▶ active (refused: past_due)
//   pending  ──period 0 settled by retrieve, no token──▶ past_due (card_required)
//   pending  ──first payment refused, cancel──▶ canceled
//   pending  ──checkout's window expired unpaid──▶ canceled (checkout_expired)
//   active   ──renewal refused, gateway charge refused──▶ past_due ──last dunning retry refused──▶ canceled
//   past_due ──new card pays the overdue period──▶ active     past_due ──new card, nothing owed yet──▶ active
//   past_due ──retry now: the next dunning retry brought forward (the charge worker charges it)──▶ past_due
//   active ──pause──▶ paused ──resume (or resume_at)──▶ active
//   active, past_due, paused ──cancel──▶ canceled        canceled: final, every input refused

export type SubscriptionInput =
  /** Period 0 is paid: the sign-up is active at period 1, with what the gateway issued for it. */
  | {
      readonly kind: "first_payment";
      readonly token_id?: string;
      readonly recurring_id?: string;
      readonly card?: MaskedCard;
    }
  /**
   * Period 0 was refused: the sign-up ends, or (`retry`: nothing charged, the caller may repeat its request) stays
   * pending with the next attempt number.
   */
  | {
      readonly kind: "first_payment_refused";
      readonly attempt: number;
      readonly reason: string;
      readonly retry: boolean;
    }
  /** A checkout still pending at its expiry (checkout_expires_at): closed, announced as checkout.expired. */
  | { readonly kind: "checkout_expired" }
  /**
   * The current attempt of our charge run closed: succeeded, declined or failed (our request was invalid). Also a
   * sign-up's period 0 whose outcome retrieve settled (the attempt sweep): it never learned a token.
   */
  | { readonly kind: "charge_closed"; readonly attempt: ChargeAttempt; readonly policy: ChargePolicy }
  /** The current attempt was voided (no transaction exists): the next attempt number is charged. */
  | { readonly kind: "charge_voided"; readonly attempt: ChargeAttempt }
  /** The gateway charged (or failed to charge) its registered plan for the current period: a recurring notice. */
  | { readonly kind: "gateway_charge"; readonly attempt: ChargeAttempt }
  | { readonly kind: "cancel"; readonly reason: string }
  /** Cancel when the paid period ends (token billing): no further charge; undone by an update before then. */
  | { readonly kind: "cancel_at_period_end" }
  /** The charge run found the paid period of a subscription with a scheduled cancel over. */
  | { readonly kind: "period_ended" }
  /**
   * A new plan: `now`, from the next charge on (same interval); `next_renewal`, scheduled: the next period is charged
   * at its amount and, once paid, the plan is replaced (a new interval re-anchors the schedule at that period).
   * `priced_on`: a change asked to be prorated that found nothing owed holds only on what it found that on.
   */
  | {
      readonly kind: "adjust_plan";
      readonly plan: Plan;
      readonly at: "now" | "next_renewal";
      readonly priced_on?: PricedOn;
    }
  /**
   * An upgrade paid for at once: `plan` waits as pending_plan, no other plan change made meanwhile, until its proration
   * line `order_id` is paid (plan_change_paid) or charged nothing (plan_change_abandoned). `priced_on`: what the
   * proration was computed from, which the subscription must still hold.
   */
  | {
      readonly kind: "plan_change_started";
      readonly plan: Plan;
      readonly order_id: string;
      readonly priced_on: PricedOn;
    }
  | { readonly kind: "plan_change_paid"; readonly order_id: string }
  | { readonly kind: "plan_change_abandoned"; readonly order_id: string }
  /** No charges until resumed (token billing), or until `resume_at`, when the charge run resumes it. */
  | { readonly kind: "pause"; readonly resume_at?: string }
  /**
   * Charging again: the next period starts when the paid one ends, or — when it ended during the pause — now (the
   * schedule is re-anchored there and the period charged at once).
   */
  | { readonly kind: "resume" }
  /**
   * A new card's token replaces the stored one. `paid`: the payment that issued it paid the current (overdue) period,
   * which a past_due subscription owed; without it the card was verified by a charge refunded at once.
   */
  | {
      readonly kind: "payment_method_updated";
      /** Token billing: the new card's token. */
      readonly token_id?: string;
      /** Gateway-managed billing: the plan registered with the new card. */
      readonly recurring_id?: string;
      readonly card?: MaskedCard;
      readonly paid?: ChargeAttempt;
    }
  /** A new card was refused paying the current attempt: the next attempt number is charged next, dunning unchanged. */
  | { readonly kind: "card_refused"; readonly attempt: ChargeAttempt }
  /** The customer asks for the overdue period's next dunning retry now (the card on file) instead of when scheduled. */
  | { readonly kind: "retry_now" }
  /**
   * The SaaS's own references: `external_id` set (null clears it); `metadata` merged key by key, an empty value
   * removing its key (as Stripe's metadata); `cancel_at_period_end: false` undoes a scheduled cancel.
   */
  | {
      readonly kind: "update_customer";
      readonly external_id?: string | null;
      readonly metadata?: Readonly<Record<string, string>>;
      readonly cancel_at_period_end?: false;
    };

export type Step =
  /** `after`: the subscription as the update leaves it, when it applies. */
  | { readonly kind: "transition"; readonly update: SubscriptionUpdate; readonly after: Subscription }
  /** The input asks for what already holds: nothing to write. */
  | { readonly kind: "unchanged" }
  | { readonly kind: "refused"; readonly reason: string };

const DAY_MS = 86_400_000;

/**
 * What an amount computed from a subscription depends on: its plan and where its paid period lies. A decision priced on
 * it (a proration) applies only while the subscription still holds it, however often its write is taken again.
 */
export interface PricedOn {
  readonly plan: Plan;
  readonly period: number;
  readonly anchor_at: string;
  readonly anchor_period?: number;
}

export const pricedOn = (subscription: Subscription): PricedOn => ({
  plan: subscription.plan,
  period: subscription.period,
  anchor_at: subscription.anchor_at,
  anchor_period: subscription.anchor_period,
});

/** The same plan: amount, interval and currency. */
export const samePlan = (a: Plan, b: Plan) =>
  a.amount === b.amount && a.interval_months === b.interval_months && a.currency === b.currency;

export const stillPricedOn = (subscription: Subscription, priced: PricedOn) =>
  samePlan(subscription.plan, priced.plan) &&
  subscription.period === priced.period &&
  subscription.anchor_at === priced.anchor_at &&
  subscription.anchor_period === priced.anchor_period;

const replacedPlan = (subscription: Subscription) =>
  `the proration was priced on a plan since replaced: the plan is ${planText(subscription.plan)}`;

/** The plan as a person reads it, for a refusal that names it. */
export const planText = (plan: Plan) =>
  `${plan.amount} ${plan.currency} every ${plan.interval_months} month${plan.interval_months === 1 ? "" : "s"}`;

const refused = (reason: string): Step => ({ kind: "refused", reason });

/**
 * The one event a status change announces, about the subscription as it becomes; with the status unchanged, a cancel
 * newly scheduled announces itself.
 */
function statusEvents(subscription: Subscription, after: Subscription): EventFacts[] {
  const subject = subjectOf(after);
  const reason = after.status_reason;
  if (after.status === subscription.status)
    return subscription.cancel_at === undefined && after.cancel_at !== undefined
      ? [{ type: "subscription.cancel_scheduled", ...subject, cancel_at: after.cancel_at }]
      : [];
  switch (after.status) {
    case "trialing":
      return [{ type: "subscription.trial_started", ...subject, trial_end: after.trial_end ?? "" }];
    case "active":
      if (subscription.status === "pending" || subscription.status === "trialing")
        return [{ type: "subscription.activated", ...subject }];
      return subscription.status === "paused"
        ? [{ type: "subscription.resumed", ...subject, next_charge_at: after.next_charge_at ?? "" }]
        : [{ type: "subscription.reactivated", ...subject }];
    case "paused":
      return [
        {
          type: "subscription.paused",
          ...subject,
          ...(after.resume_at === undefined ? {} : { resume_at: after.resume_at }),
        },
      ];
    case "past_due":
      return [{ type: "subscription.past_due", ...subject, reason: reason ?? "payment_declined" }];
    case "canceled": {
      // A checkout that never started is announced as what ended it, not as a subscription that was running.
      const expiresAt = after.checkout_expires_at;
      if (reason === CHECKOUT_EXPIRED && expiresAt !== undefined)
        return [{ type: "checkout.expired", ...subject, purpose: "signup", expires_at: expiresAt }];
      return [{ type: "subscription.canceled", ...subject, reason: reason ?? "canceled" }];
    }
    case "pending":
      return [];
  }
}

type Changed = Extract<EventFacts, { type: "subscription.updated" }>["changed"];

/**
 * A transition to `set`, guarded by `expect`: a status change announces itself, other changes of what a SaaS keys
 * on announce subscription.updated naming them (`changed`); `announce` adds the events of the change itself.
 */
function transition(
  subscription: Subscription,
  now: Date,
  change: Pick<SubscriptionUpdate, "expect" | "set" | "remove"> & {
    readonly changed?: Changed;
    readonly announce?: (after: Subscription) => EventFacts[];
  },
): Step {
  const revision = subscription.revision ?? 0;
  const update = {
    expect: { status: subscription.status, ...change.expect, revision },
    set: { ...change.set, revision: revision + 1, updated_at: now.toISOString() },
    remove: change.remove,
  };
  const after = stateAfter(subscription, update);
  const updated: EventFacts[] =
    change.changed === undefined
      ? []
      : [{ type: "subscription.updated", ...subjectOf(after), changed: change.changed }];
  return {
    kind: "transition",
    update: {
      ...update,
      events: placedByWrite(after, [
        ...statusEvents(subscription, after),
        ...updated,
        ...(change.announce?.(after) ?? []),
      ]),
    },
    after,
  };
}

/**
 * What a charge's transition must still find: the attempt's period and attempt, and the scheduled cancel as read (a
 * cancel scheduled or undone while the charge was in flight changes what its close must do).
 */
const chargeExpectation = (subscription: Subscription, attempt: ChargeAttempt) => ({
  period: attempt.period,
  attempt: attempt.attempt,
  cancel_at: subscription.cancel_at ?? null,
});

/** Where the subscription stands in its schedule: a change decided there applies only there. */
const position = (subscription: Subscription) => ({
  period: subscription.period,
  attempt: subscription.attempt,
});

const isCurrent = (subscription: Subscription, attempt: ChargeAttempt) =>
  attempt.period === subscription.period && attempt.attempt === subscription.attempt;

/** The next step of `subscription` on `input` at `now`: the transition to write, or why there is none. */
export function nextStep(subscription: Subscription, input: SubscriptionInput, now: Date): Step {
  if (subscription.status === "canceled") return refused("subscription is canceled");
  switch (input.kind) {
    case "first_payment":
      return subscription.status === "pending"
        ? firstPayment(subscription, input, now)
        : refused("not pending");
    case "first_payment_refused":
      if (subscription.status !== "pending") return refused("not pending");
      return input.retry
        ? transition(subscription, now, {
            expect: { period: 0, attempt: input.attempt },
            set: { attempt: input.attempt + 1, status_reason: input.reason },
          })
        : transition(subscription, now, {
            expect: { period: 0 },
            set: { status: "canceled", status_reason: input.reason },
          });
    case "checkout_expired":
      if (subscription.status !== "pending") return refused("not pending");
      if (!hasExpired(subscription.checkout_expires_at, now)) return refused("the checkout has not expired");
      // At the try whose line was found settled: a refusal recorded meanwhile is weighed again by the next sweep.
      return transition(subscription, now, {
        expect: position(subscription),
        set: { status: "canceled", status_reason: CHECKOUT_EXPIRED },
      });
    case "charge_closed":
    case "charge_voided":
    case "card_refused":
    case "gateway_charge": {
      // A pending sign-up's current attempt is its period 0's; the gateway's plan starts only after it.
      if (subscription.status === "pending" && input.kind === "gateway_charge")
        return refused("not active yet");
      if (!isCurrent(subscription, input.attempt))
        return refused(`attempt ${input.attempt.order_id} is not the current one`);
      if (subscription.status === "paused") return chargeWhilePaused(subscription, input.attempt, now);
      if (input.kind === "charge_voided" || input.kind === "card_refused")
        return transition(subscription, now, {
          expect: chargeExpectation(subscription, input.attempt),
          set: { attempt: subscription.attempt + 1 },
        });
      if (input.kind === "gateway_charge")
        return subscription.billing_mode === "recurring"
          ? gatewayCharge(subscription, input.attempt, now)
          : refused("not billed by the gateway");
      const closed =
        input.attempt.status === "succeeded"
          ? chargePaid(subscription, input.attempt, now)
          : chargeRefused(subscription, input.attempt, now, input.policy);
      return subscription.cancel_at === undefined ? closed : keepScheduledCancel(subscription, closed, now);
    }
    case "cancel":
      return transition(subscription, now, {
        expect: { period: subscription.period },
        set: { status: "canceled", status_reason: input.reason },
        remove: ["next_charge_at", "cancel_at", "resume_at"],
      });
    case "cancel_at_period_end":
      return cancelAtPeriodEnd(subscription, now);
    case "period_ended":
      if (subscription.cancel_at === undefined || Date.parse(subscription.cancel_at) > now.getTime())
        return refused("no scheduled cancel is due");
      return transition(subscription, now, {
        expect: { ...position(subscription), cancel_at: subscription.cancel_at },
        set: { status: "canceled", status_reason: "canceled_at_period_end" },
        remove: ["next_charge_at", "cancel_at"],
      });
    case "adjust_plan":
      if (subscription.pending_plan_order !== undefined)
        return refused("a plan change is being paid for: repeat once it is settled");
      if (input.priced_on !== undefined && !stillPricedOn(subscription, input.priced_on))
        return refused(replacedPlan(subscription));
      return adjustPlan(subscription, input, now);
    case "plan_change_started":
      return planChangeStarted(subscription, input, now);
    case "plan_change_paid":
      if (subscription.pending_plan_order !== input.order_id || subscription.pending_plan === undefined)
        return refused(`no plan change paid by ${input.order_id} is pending`);
      return adjustPlan(
        subscription,
        { kind: "adjust_plan", plan: subscription.pending_plan, at: "now" },
        now,
        pendingPaidBy(input.order_id),
      );
    case "plan_change_abandoned":
      if (subscription.pending_plan_order !== input.order_id) return { kind: "unchanged" };
      return transition(subscription, now, {
        expect: { pending_plan_order: input.order_id },
        set: {},
        remove: ["pending_plan", "pending_plan_order"],
      });
    case "update_customer":
      return updateCustomer(subscription, input, now);
    case "pause":
      return pause(subscription, input, now);
    case "resume":
      return resume(subscription, now);
    case "payment_method_updated":
      return paymentMethodUpdated(subscription, input, now);
    case "retry_now":
      return retryNow(subscription, now);
  }
}

/**
 * A past_due subscription's next dunning retry, brought forward to now: the charge worker then charges the current
 * attempt (one of the schedule's retries). Only while a retry is scheduled: a dead card waits for a new one.
 */
function retryNow(subscription: Subscription, now: Date): Step {
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
 * No charges while paused: only an active subscription billed here pauses, and not while its period is due (the
 * charge run is charging it; pause after). The gateway charges its own plans on its own schedule.
 */
function pause(
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

function resume(subscription: Subscription, now: Date): Step {
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
 * A charge that was in flight when the subscription paused closed afterwards: paid, its period counts (the next one
 * is charged after the resume); refused or voided, the next attempt gets a new order_id. Still paused either way.
 */
function chargeWhilePaused(subscription: Subscription, attempt: ChargeAttempt, now: Date): Step {
  const expect = chargeExpectation(subscription, attempt);
  if (attempt.status !== "succeeded")
    return transition(subscription, now, { expect, set: { attempt: attempt.attempt + 1 } });
  const { set, remove, changed } = paidThrough(subscription, attempt);
  return transition(subscription, now, { expect, set, remove, changed });
}

/** Active at period 1; our charge run bills period 1 under token billing, the gateway does under recurring billing. */
function firstPayment(
  subscription: Subscription,
  paid: Extract<SubscriptionInput, { kind: "first_payment" }>,
  now: Date,
): Step {
  return transition(subscription, now, {
    expect: { period: 0 },
    set: {
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
function chargePaid(subscription: Subscription, attempt: ChargeAttempt, now: Date): Step {
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
 * the period was charged at its amount (a charge already in flight when it was scheduled leaves it for the next),
 * re-anchoring the schedule at the paid period when the interval changes.
 */
function paidThrough(subscription: Subscription, attempt: ChargeAttempt) {
  const advance = { period: attempt.period + 1, attempt: 0 };
  const scheduled = subscription.scheduled_plan;
  if (scheduled === undefined || scheduled.amount !== attempt.amount)
    return {
      set: advance,
      remove: [] as RemovableSubscriptionField[],
      nextPeriodStart: periodStartOf(subscription, advance.period),
      changed: paidChanges(advance),
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
    changed: paidChanges(set),
  };
}

/**
 * What a charge's write changes that a SaaS keys on: a paid period moves `current_period` on (a renewal announces it,
 * the period's end being where access runs to), with the plan when a change scheduled for it took effect.
 */
function paidChanges(set: SubscriptionUpdate["set"]): Changed | undefined {
  if (set.period === undefined) return undefined;
  return [...(set.plan === undefined ? [] : (["plan"] as const)), "current_period"];
}

/**
 * A new plan. Now: the amount from the next charge on (an interval change waits for the renewal: the paid period
 * keeps its length); any scheduled change is dropped. Next renewal: scheduled, shown as `scheduled_plan` until then.
 */
/** What applying a paid plan change must still find, and what it clears: the pending change it pays for. */
interface PaidChange {
  readonly expect: { readonly pending_plan_order: string };
  readonly remove: readonly RemovableSubscriptionField[];
}

const pendingPaidBy = (orderId: string): PaidChange => ({
  expect: { pending_plan_order: orderId },
  remove: ["pending_plan", "pending_plan_order"],
});

/**
 * A plan change that charges first: its plan waits until the proration is paid. Decided on the subscription as read
 * (the proration was computed from its plan and period), and the only plan change until it is settled.
 */
function planChangeStarted(
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

function adjustPlan(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "adjust_plan" }>,
  now: Date,
  paid?: PaidChange,
): Step {
  const { plan } = input;
  if (plan.currency !== subscription.plan.currency) return refused("the currency cannot change");
  const same = (a: Plan | undefined) =>
    a !== undefined && a.amount === plan.amount && a.interval_months === plan.interval_months;
  // A paid change applies over whatever was written since it started; any other is decided on the state as read.
  const expect = paid?.expect ?? { updated_at: subscription.updated_at };
  if (input.at === "now") {
    if (plan.interval_months !== subscription.plan.interval_months)
      return refused("an interval change takes effect at the next renewal");
    if (same(subscription.plan) && subscription.scheduled_plan === undefined && paid === undefined)
      return { kind: "unchanged" };
    const dropped = subscription.scheduled_plan === undefined ? [] : (["scheduled_plan"] as const);
    const changed = [...(same(subscription.plan) ? [] : (["plan"] as const)), ...dropped];
    return transition(subscription, now, {
      expect,
      set: same(subscription.plan) ? {} : { plan },
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

/**
 * Dunning: the next step of the schedule, past_due from the first refusal, canceled after the last; a dead token or
 * a dead card goes straight to past_due and waits for a new card.
 */
function chargeRefused(
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
function gatewayCharge(subscription: Subscription, attempt: ChargeAttempt, now: Date): Step {
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
function keepScheduledCancel(subscription: Subscription, closed: Step, now: Date): Step {
  if (closed.kind !== "transition") return closed;
  const { set, expect, remove } = closed.update;
  const nextChargeAt = closed.after.next_charge_at;
  if (closed.after.status === "active" && nextChargeAt !== undefined)
    return transition(subscription, now, {
      expect,
      set: { ...set, cancel_at: nextChargeAt },
      remove,
      changed: paidChanges(set),
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

/**
 * Access runs until the paid period ends (the next charge's instant), when the charge run cancels instead of
 * charging. Only an active subscription billed here has a paid period running: a past_due one has nothing left to
 * run out (cancel it now), and the gateway charges its own plans on its own schedule.
 */
function cancelAtPeriodEnd(subscription: Subscription, now: Date): Step {
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

/**
 * The new card's token (or, for a gateway-managed plan, the plan registered with it) replaces the stored one, guarded
 * by the one as read, so of two concurrent updates one wins and the other's is retired by its caller. Paid: the overdue period is paid, so the subscription moves to the next one,
 * active, dunning cleared. Not paid: a past_due subscription owed nothing yet (its period had not started) and is
 * active again, charged when that period starts.
 */
function paymentMethodUpdated(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "payment_method_updated" }>,
  now: Date,
): Step {
  if (subscription.status === "pending") return refused("the first payment is not settled yet");
  const byToken = subscription.billing_mode === "token";
  const replacing = byToken ? input.token_id : input.recurring_id;
  if (replacing === undefined)
    return refused(byToken ? "no token for the new card" : "no plan for the new card");
  const current = byToken ? subscription.token_id : subscription.recurring_id;
  if (current === replacing) return { kind: "unchanged" };
  const method = {
    ...(byToken ? { token_id: replacing } : { recurring_id: replacing }),
    ...(input.card === undefined ? {} : { card: input.card }),
  };
  const change = {
    announce: (after: Subscription): EventFacts[] => [
      {
        type: "payment_method.updated",
        ...subjectOf(after),
        ...(input.card === undefined ? {} : { card: { ...input.card } }),
      },
    ],
    remove: ["dunning", "status_reason"] as RemovableSubscriptionField[],
  };
  const expectMethod = byToken ? { token_id: current ?? null } : { recurring_id: current ?? null };
  const { paid } = input;
  if (paid !== undefined) {
    if (subscription.status !== "past_due") return refused("nothing is overdue");
    if (!isCurrent(subscription, paid) || paid.status !== "succeeded")
      return refused(`attempt ${paid.order_id} is not the current one, paid`);
    const through = paidThrough(subscription, paid);
    return transition(subscription, now, {
      ...change,
      changed: through.changed,
      expect: { ...chargeExpectation(subscription, paid), ...expectMethod },
      set: {
        ...through.set,
        ...method,
        status: "active",
        ...(byToken ? { next_charge_at: through.nextPeriodStart.toISOString() } : {}),
      },
      remove: [...change.remove, ...through.remove],
    });
  }
  if (subscription.status !== "past_due")
    return transition(subscription, now, { announce: change.announce, expect: expectMethod, set: method });
  const start = periodStartOf(subscription, subscription.period);
  if (start.getTime() <= now.getTime()) return refused("the overdue period must be paid with the new card");
  return transition(subscription, now, {
    ...change,
    expect: { ...expectMethod, period: subscription.period },
    set: { ...method, status: "active", ...(byToken ? { next_charge_at: start.toISOString() } : {}) },
  });
}

function updateCustomer(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "update_customer" }>,
  now: Date,
): Step {
  const { external_id: current, ...customer } = subscription.customer;
  const externalId = input.external_id === undefined ? current : (input.external_id ?? undefined);
  const nextCustomer = externalId === undefined ? customer : { ...customer, external_id: externalId };
  const merged = Object.fromEntries(
    Object.entries({ ...subscription.metadata, ...input.metadata }).filter(([, value]) => value !== ""),
  );
  if (Object.keys(merged).length > METADATA_MAX_KEYS)
    return refused(`metadata would have more than ${METADATA_MAX_KEYS} keys`);
  const changed: Changed = [];
  const undoCancel = input.cancel_at_period_end === false && subscription.cancel_at !== undefined;
  if (undoCancel) changed.push("cancel_at");
  if (externalId !== current) changed.push("external_id");
  if (JSON.stringify(sortedEntries(merged)) !== JSON.stringify(sortedEntries(subscription.metadata ?? {})))
    changed.push("metadata");
  if (changed.length === 0) return { kind: "unchanged" };
  const hasMetadata = Object.keys(merged).length > 0;
  return transition(subscription, now, {
    expect: { updated_at: subscription.updated_at },
    // The customer only when its external_id changes: the table links the new id (and reads the item) only then.
    set: {
      ...(changed.includes("external_id") ? { customer: nextCustomer } : {}),
      ...(hasMetadata ? { metadata: merged } : {}),
    },
    remove: [
      ...(hasMetadata ? [] : (["metadata"] as const)),
      ...(undoCancel ? (["cancel_at"] as const) : []),
    ],
    changed,
  });
}

const sortedEntries = (map: Readonly<Record<string, string>>) =>
  Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The subscription as a transition's update leaves it (what the conditional write stores). */
export function stateAfter(subscription: Subscription, update: SubscriptionUpdate): Subscription {
  const next: Record<string, unknown> = { ...subscription, ...update.set };
  for (const field of update.remove ?? []) delete next[field];
  return subscriptionSchema.parse(next);
}

export type Applied =
  | { readonly kind: "applied"; readonly subscription: Subscription; readonly update: SubscriptionUpdate }
  | { readonly kind: "unchanged"; readonly subscription: Subscription }
  /** The subscription changed since it was read: the conditional write did not apply. */
  | { readonly kind: "stale" }
  | { readonly kind: "refused"; readonly reason: string };

type ApplyDeps = {
  readonly repository: Pick<BillingRepository, "updateSubscription" | "getSubscription">;
  readonly clock: Clock;
};

/** Whether `subscription` still holds what a transition expects of it, its revision aside. */
export function meetsExpectation(subscription: Subscription, expect: SubscriptionExpectation): boolean {
  const { revision: _revision, ...fields } = expect;
  return Object.entries(fields).every(([field, value]) => {
    const held = subscription[field as keyof typeof fields];
    return value === undefined || (value === null ? held === undefined : held === value);
  });
}

/** How often a change is taken again on the subscription read anew after losing its write to another writer. */
const CHANGE_TRIES = 20;

/**
 * Takes the step of `inputFor(subscription)` and writes it with its events, conditionally; a lost write reads the
 * subscription again and, while `tryAgain` says so, takes the step anew on it (until the tries, which no real load
 * exhausts, run out).
 */
async function applyStep(
  subscription: Subscription,
  inputFor: (current: Subscription) => SubscriptionInput,
  deps: ApplyDeps,
  tryAgain: (fresh: Subscription, lost: SubscriptionUpdate) => boolean,
): Promise<Applied> {
  let current = subscription;
  for (let tries = 1; ; tries += 1) {
    const step = nextStep(current, inputFor(current), deps.clock.now());
    if (step.kind === "refused") return step;
    if (step.kind === "unchanged") return { kind: "unchanged", subscription: current };
    if (await deps.repository.updateSubscription(current.subscription_id, step.update))
      return { kind: "applied", subscription: step.after, update: step.update };
    const fresh =
      tries < CHANGE_TRIES ? await deps.repository.getSubscription(current.subscription_id) : undefined;
    if (fresh === undefined || !tryAgain(fresh, step.update)) return { kind: "stale" };
    current = fresh;
  }
}

/**
 * Takes the next step of `subscription` (as read) on `input` and writes it, with its events, conditionally. Every
 * write expects the revision read, so a write that lost only to a change it does not depend on (metadata written
 * during a charge) is taken again on the subscription as it now is: its events then tell what it really became.
 * A write whose own expectation no longer holds is stale.
 */
export function applyInput(subscription: Subscription, input: SubscriptionInput, deps: ApplyDeps) {
  return applyStep(
    subscription,
    () => input,
    deps,
    (fresh, lost) => meetsExpectation(fresh, lost.expect),
  );
}

/**
 * Applies a change money already paid for (a new card's payment, a prorated upgrade): a write lost to another writer is
 * not an answer — the subscription is read again and the input made for it applied again, until it applies or the
 * machine refuses it.
 */
export function applyPaidInput(
  subscription: Subscription,
  inputFor: (current: Subscription) => SubscriptionInput,
  deps: ApplyDeps,
) {
  return applyStep(subscription, inputFor, deps, () => true);
}
