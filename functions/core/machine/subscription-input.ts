import type { ChargePolicy } from "../base/charge-policy";
import type { ChargeAttempt, Discount, MaskedCard, PendingCredit, Plan, Subscription } from "../base/model";
import { quantityOf } from "../base/plan-price";
import type { SubscriptionUpdate } from "../ports/billing-repository";

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
   * `priced_on`: a change asked to be prorated that found nothing owed holds only on what it found that on. `credit`:
   * a decrease now whose unused part goes back (refund_now), written with the plan, priced on the subscription as read.
   */
  | {
      readonly kind: "adjust_plan";
      readonly plan: Plan;
      readonly at: "now" | "next_renewal";
      readonly priced_on?: PricedOn;
      readonly credit?: PendingCredit;
    }
  /** The pending credit's refund is claimed (its own protocol sends it from there): the subscription lets go of it. */
  | { readonly kind: "credit_claimed"; readonly refund_id: string }
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
      /** A coupon's discount applied, or null: removed. */
      readonly discount?: Discount | null;
      readonly metadata?: Readonly<Record<string, string>>;
      readonly cancel_at_period_end?: false;
    };

export type Step =
  /** `after`: the subscription as the update leaves it, when it applies. */
  | { readonly kind: "transition"; readonly update: SubscriptionUpdate; readonly after: Subscription }
  /** The input asks for what already holds: nothing to write. */
  | { readonly kind: "unchanged" }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * What an amount computed from a subscription depends on: its plan, its discount and where its paid period lies. A
 * decision priced on it (a proration) applies only while the subscription still holds it, however often its write is
 * taken again.
 */
export interface PricedOn {
  readonly plan: Plan;
  /** The coupon whose discount the amount was computed with (undefined: none). */
  readonly coupon_id?: string;
  readonly period: number;
  readonly anchor_at: string;
  readonly anchor_period?: number;
}

export const pricedOn = (subscription: Subscription): PricedOn => ({
  plan: subscription.plan,
  coupon_id: subscription.discount?.coupon_id,
  period: subscription.period,
  anchor_at: subscription.anchor_at,
  anchor_period: subscription.anchor_period,
});

/** The same plan: amount, seats, interval and currency. */
export const samePlan = (a: Plan, b: Plan) =>
  a.amount === b.amount &&
  quantityOf(a) === quantityOf(b) &&
  a.interval_months === b.interval_months &&
  a.currency === b.currency;

export const stillPricedOn = (subscription: Subscription, priced: PricedOn) =>
  samePlan(subscription.plan, priced.plan) &&
  subscription.discount?.coupon_id === priced.coupon_id &&
  subscription.period === priced.period &&
  subscription.anchor_at === priced.anchor_at &&
  subscription.anchor_period === priced.anchor_period;

/** What a subscription.updated names of a plan replaced by another: its price, its seats, or both. */
export function planChanges(from: Plan, to: Plan): ("plan" | "quantity")[] {
  const priced =
    from.amount !== to.amount || from.interval_months !== to.interval_months || from.price_id !== to.price_id;
  return [
    ...(priced ? (["plan"] as const) : []),
    ...(quantityOf(from) === quantityOf(to) ? [] : (["quantity"] as const)),
  ];
}

/** The plan as a person reads it, for a refusal that names it. */
export const planText = (plan: Plan) =>
  `${quantityOf(plan) === 1 ? "" : `${quantityOf(plan)} × `}${plan.amount} ${plan.currency} every ${plan.interval_months} month${plan.interval_months === 1 ? "" : "s"}`;
