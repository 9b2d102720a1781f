import { type EventFacts, placedByWrite, subjectOf } from "../base/events";
import { CHECKOUT_EXPIRED, type ChargeAttempt, type Subscription, subscriptionSchema } from "../base/model";
import type { SubscriptionUpdate } from "../ports/billing-repository";
import type { Step } from "./subscription-input";

export const refused = (reason: string): Step => ({ kind: "refused", reason });

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

export type Changed = Extract<EventFacts, { type: "subscription.updated" }>["changed"];

/**
 * A transition to `set`, guarded by `expect`: a status change announces itself, other changes of what a SaaS keys
 * on announce subscription.updated naming them (`changed`); `announce` adds the events of the change itself.
 */
export function transition(
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
      events: placedByWrite(
        after,
        [...statusEvents(subscription, after), ...updated, ...(change.announce?.(after) ?? [])],
        subscription,
      ),
    },
    after,
  };
}

/**
 * What a charge's transition must still find: the attempt's period and attempt, and the scheduled cancel as read (a
 * cancel scheduled or undone while the charge was in flight changes what its close must do).
 */
export const chargeExpectation = (subscription: Subscription, attempt: ChargeAttempt) => ({
  period: attempt.period,
  attempt: attempt.attempt,
  cancel_at: subscription.cancel_at ?? null,
});

/** Where the subscription stands in its schedule: a change decided there applies only there. */
export const position = (subscription: Subscription) => ({
  period: subscription.period,
  attempt: subscription.attempt,
});

export const isCurrent = (subscription: Subscription, attempt: ChargeAttempt) =>
  attempt.period === subscription.period && attempt.attempt === subscription.attempt;

/** The subscription as a transition's update leaves it (what the conditional write stores). */
export function stateAfter(subscription: Subscription, update: SubscriptionUpdate): Subscription {
  const next: Record<string, unknown> = { ...subscription, ...update.set };
  for (const field of update.remove ?? []) delete next[field];
  return subscriptionSchema.parse(next);
}
