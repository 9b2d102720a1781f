import type { ChargePolicy } from "./charge-policy";
import type { BillingEvent } from "./events";
import type { ChargeAttempt, Subscription } from "./model";
import type { SubscriptionUpdate } from "./ports";

const DAY_MS = 86_400_000;

export interface Transition {
  readonly update: SubscriptionUpdate;
  readonly events: readonly BillingEvent[];
}

function chargeFacts(attempt: ChargeAttempt) {
  const { subscription_id, period, order_id, amount, currency } = attempt;
  return { subscription_id, period, attempt: attempt.attempt, order_id, amount, currency };
}

type ChargeEvent<T extends BillingEvent["type"]> = Extract<BillingEvent, { readonly type: T }>;

/** charge.succeeded of a succeeded attempt. */
export function chargeSucceededEvent(attempt: ChargeAttempt): ChargeEvent<"charge.succeeded"> {
  return { type: "charge.succeeded", ...chargeFacts(attempt), transaction_id: attempt.transaction_id };
}

/** charge.failed of a declined attempt, or of one the gateway refused as invalid. */
export function chargeFailedEvent(attempt: ChargeAttempt): ChargeEvent<"charge.failed"> {
  return {
    type: "charge.failed",
    ...chargeFacts(attempt),
    reason: attempt.status === "failed" ? "gateway_rejected_request" : "declined",
    rescode: attempt.rescode,
    errcode: attempt.errcode,
  };
}

/** Why no retry of this refusal can succeed — the token or the card behind it is dead — or undefined. */
function deadEnd(policy: ChargePolicy, { rescode, errcode }: ChargeAttempt): string | undefined {
  if (rescode !== undefined && policy.tokenExpiredCodes.includes(rescode)) return "token_expired";
  if (rescode !== undefined && policy.tokenRevokedCodes.includes(rescode)) return "token_revoked";
  const deadCard =
    (errcode !== undefined && policy.deadCardErrcodes.includes(errcode)) ||
    (rescode !== undefined && policy.deadCardRescodes.includes(rescode));
  return deadCard ? "card_required" : undefined;
}

/**
 * After a declined (or refused-as-invalid) attempt: the next step of the dunning schedule, past_due from the first
 * decline, canceled after the last; a dead token or a dead card goes straight to past_due and waits for a new card.
 */
export function afterDecline(
  subscription: Subscription,
  attempt: ChargeAttempt,
  now: Date,
  policy: ChargePolicy,
): Transition {
  // The status read before the call must still hold: a cancel that raced the charge is not undone.
  const expect = { period: attempt.period, attempt: attempt.attempt, status: subscription.status };
  const failed = chargeFailedEvent(attempt);
  const updated_at = now.toISOString();
  const pastDue = (reason: string): BillingEvent[] =>
    subscription.status === "past_due"
      ? []
      : [{ type: "subscription.past_due", subscription_id: subscription.subscription_id, reason }];

  const dead = deadEnd(policy, attempt);
  if (dead) {
    return {
      update: {
        expect,
        set: { status: "past_due", status_reason: dead, attempt: attempt.attempt + 1, updated_at },
        remove: ["next_charge_at"],
      },
      events: [failed, ...pastDue(dead)],
    };
  }

  const step = (subscription.dunning?.step ?? 0) + 1;
  const waitDays = policy.dunningScheduleDays[step - 1];
  if (waitDays === undefined) {
    return {
      update: {
        expect,
        set: {
          status: "canceled",
          status_reason: "dunning_exhausted",
          attempt: attempt.attempt + 1,
          updated_at,
        },
        remove: ["next_charge_at"],
      },
      events: [
        failed,
        {
          type: "subscription.canceled",
          subscription_id: subscription.subscription_id,
          reason: "dunning_exhausted",
        },
      ],
    };
  }
  return {
    update: {
      expect,
      set: {
        status: "past_due",
        status_reason: "payment_declined",
        attempt: attempt.attempt + 1,
        next_charge_at: new Date(now.getTime() + waitDays * DAY_MS).toISOString(),
        dunning: {
          step,
          reason: failed.reason,
          rescode: attempt.rescode,
          since: subscription.dunning?.since ?? updated_at,
        },
        updated_at,
      },
    },
    events: [failed, ...pastDue("payment_declined")],
  };
}

/**
 * After a successful attempt: the next period, back to active (reactivated if it was past_due). The charge run
 * bills the next period only under token billing, and only with a token: a sign-up whose outcome was settled by
 * retrieve never learned its token, so that subscription waits for a card instead.
 */
export function afterSuccess(
  subscription: Subscription,
  attempt: ChargeAttempt,
  nextChargeAt: Date,
  now: Date,
): Transition {
  const events: BillingEvent[] = [chargeSucceededEvent(attempt)];
  // The status read before the call must still hold: a cancel that raced the charge is not undone.
  const expect = { period: attempt.period, attempt: attempt.attempt, status: subscription.status };
  const advance = { period: attempt.period + 1, attempt: 0, updated_at: now.toISOString() };
  if (subscription.billing_mode === "token" && subscription.token_id === undefined) {
    events.push({
      type: "subscription.past_due",
      subscription_id: subscription.subscription_id,
      reason: "card_required",
    });
    return {
      update: {
        expect,
        set: { ...advance, status: "past_due", status_reason: "card_required" },
        remove: ["next_charge_at", "dunning"],
      },
      events,
    };
  }
  if (subscription.status === "past_due") {
    events.push({ type: "subscription.reactivated", subscription_id: subscription.subscription_id });
  }
  const billedHere = subscription.billing_mode === "token";
  return {
    update: {
      expect,
      set: {
        ...advance,
        status: "active",
        ...(billedHere ? { next_charge_at: nextChargeAt.toISOString() } : {}),
      },
      remove: billedHere ? ["dunning", "status_reason"] : ["dunning", "status_reason", "next_charge_at"],
    },
    events,
  };
}
