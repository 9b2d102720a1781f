import { CHECKOUT_EXPIRED, hasExpired, type Subscription } from "../base/model";
import {
  chargePaid,
  chargeRefused,
  chargeWhilePaused,
  firstPayment,
  gatewayCharge,
  keepScheduledCancel,
  retryNow,
} from "./charge-steps";
import { paymentMethodUpdated, updateCustomer } from "./customer-steps";
import { adjustPlan, pendingPaidBy, planChangeStarted, replacedPlan } from "./plan-steps";
import { cancelAtPeriodEnd, pause, resume } from "./status-steps";
import { type Step, type SubscriptionInput, stillPricedOn } from "./subscription-input";
import { chargeExpectation, isCurrent, position, refused, transition } from "./transition";

// The subscription's one state machine (README, Subscription lifecycle). Every change to a subscription is a pure step
// from (subscription, input, now) to a transition — the conditional update and the events it announces — or a
// refusal; `applyInput` (apply-input.ts) is the one place that writes a transition, in one conditional write with its
// events. Each transition moves the subscription to its next revision, on which its events' sequence is built
// (transition.ts, base/events.ts). A charge's own event (charge.succeeded / charge.failed) belongs to its ledger line
// and is written with its close. The inputs are declared in subscription-input.ts; the steps they take, by what they
// answer, in charge-steps.ts, plan-steps.ts, status-steps.ts and customer-steps.ts.
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
//   active, past_due, paused ──cancel──▶ canceled        canceled: final, every input refused but a credit's claim
//   (a decrease credited before the cancel is still owed: its refund is sent, and the subscription lets go of it)

/** The next step of `subscription` on `input` at `now`: the transition to write, or why there is none. */
export function nextStep(subscription: Subscription, input: SubscriptionInput, now: Date): Step {
  if (subscription.status === "canceled" && input.kind !== "credit_claimed")
    return refused("subscription is canceled");
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
    case "credit_claimed":
      if (subscription.pending_credit?.refund_id !== input.refund_id) return { kind: "unchanged" };
      return transition(subscription, now, {
        expect: { "pending_credit.refund_id": input.refund_id },
        set: {},
        remove: ["pending_credit"],
      });
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
