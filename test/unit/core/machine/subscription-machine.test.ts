import { describe, expect, it } from "vitest";
import type { ChargePolicy } from "../../../../functions/core/base/charge-policy";
import { DEFAULT_CHARGE_POLICY, retryDelaySeconds } from "../../../../functions/core/base/charge-policy";
import { billingEventSchema } from "../../../../functions/core/base/events";
import type { ChargeAttempt, Subscription } from "../../../../functions/core/base/model";
import { pricedOn, type SubscriptionInput } from "../../../../functions/core/machine/subscription-input";
import { nextStep } from "../../../../functions/core/machine/subscription-machine";
import type { SubscriptionUpdate } from "../../../../functions/core/ports/billing-repository";

const now = new Date("2027-03-10T08:00:00.000Z");

const subscription = (overrides: Partial<Subscription> = {}): Subscription => ({
  subscription_id: "sub_test",
  status: "active",
  billing_mode: "token",
  customer: { name: "Ada", email: "ada@example.com" },
  plan: { amount: "19.90", currency: "USD", interval_months: 1 },
  anchor_at: "2027-01-10T08:00:00.000Z",
  period: 2,
  attempt: 0,
  next_charge_at: "2027-03-10T08:00:00.000Z",
  token_id: "tok_1",
  created_at: "2027-01-10T08:00:00.000Z",
  updated_at: "2027-01-10T08:00:00.000Z",
  ...overrides,
});

const attempt = (overrides: Partial<ChargeAttempt> = {}): ChargeAttempt => ({
  subscription_id: "sub_test",
  period: 2,
  attempt: 0,
  order_id: "sub_test-2-0",
  amount: "19.90",
  currency: "USD",
  status: "declined",
  rescode: "1001",
  created_at: now.toISOString(),
  updated_at: now.toISOString(),
  ...overrides,
});

/** The transition `input` makes (a refusal fails the test). */
function transitionOf(current: Subscription, input: SubscriptionInput): Required<SubscriptionUpdate> {
  const step = nextStep(current, input, now);
  if (step.kind !== "transition") throw new Error(`no transition: ${step.kind}`);
  return { remove: [], events: [], ...step.update };
}

/** A renewal's attempt closed with `closed` (declined by default): the transition it makes. */
const afterClose = (
  current: Subscription,
  closed: ChargeAttempt,
  policy: ChargePolicy = DEFAULT_CHARGE_POLICY,
) => {
  const { events, ...update } = transitionOf(current, { kind: "charge_closed", attempt: closed, policy });
  return { update, events };
};

describe("a renewal refused (dunning)", () => {
  it("moves to past_due after the first decline and retries after the first delay of the schedule", () => {
    const { update, events } = afterClose(subscription(), attempt());
    expect(update.expect).toEqual({ period: 2, attempt: 0, status: "active", cancel_at: null, revision: 0 });
    expect(update.set).toMatchObject({
      status: "past_due",
      attempt: 1,
      next_charge_at: "2027-03-11T08:00:00.000Z",
      dunning: { step: 1, rescode: "1001" },
    });
    expect(events.map((e) => e.type)).toEqual(["subscription.past_due"]);
  });

  it("walks the schedule 1, 3, 5, 7 days and cancels after the last", () => {
    let current = subscription();
    const waits: number[] = [];
    for (let decline = 0; decline < 4; decline += 1) {
      const { update } = afterClose(current, attempt({ attempt: current.attempt }));
      const next = update.set.next_charge_at;
      waits.push(next ? (Date.parse(next) - now.getTime()) / 86_400_000 : -1);
      current = { ...current, ...update.set };
    }
    expect(waits).toEqual([1, 3, 5, 7]);
    const last = afterClose(current, attempt({ attempt: current.attempt }));
    expect(last.update.set.status).toBe("canceled");
    expect(last.update.remove).toContain("next_charge_at");
    expect(last.events.map((e) => e.type)).toEqual(["subscription.canceled"]);
  });

  it("does not announce past_due twice", () => {
    const pastDue = subscription({
      status: "past_due",
      dunning: { step: 1, reason: "declined", since: now.toISOString() },
    });
    const { events } = afterClose(pastDue, attempt());
    expect(events).toEqual([]);
  });

  it.each(["token_expired", "token_revoked"] as const)(
    "a dead token (%s) goes straight to past_due with that reason and no further attempts",
    (reason) => {
      const { update, events } = afterClose(subscription(), attempt({ rescode: "TK", dead_end: reason }));
      expect(update.set).toMatchObject({ status: "past_due", status_reason: reason });
      expect(update.remove).toContain("next_charge_at");
      expect(events).toMatchObject([{ type: "subscription.past_due", subscription_id: "sub_test", reason }]);
    },
  );

  it("a dead card stops retries at once: past_due, card_required", () => {
    const dead = attempt({ errcode: "EXPIRED_CARD", dead_end: "card_required" });
    const { update, events } = afterClose(subscription(), dead);
    expect(update.set).toMatchObject({ status: "past_due", status_reason: "card_required", attempt: 1 });
    expect(update.set.next_charge_at).toBeUndefined();
    expect(update.remove).toContain("next_charge_at");
    expect(events).toMatchObject([
      { type: "subscription.past_due", subscription_id: "sub_test", reason: "card_required" },
    ]);
  });

  it.each(["INSUFFICIENT_FUNDS", "EXPIRED_CARD"])(
    "a decline without a dead end (errcode %s) follows the dunning schedule: the reason is the adapter's to judge",
    (errcode) => {
      const { update } = afterClose(subscription(), attempt({ errcode }));
      expect(update.set).toMatchObject({
        status: "past_due",
        status_reason: "payment_declined",
        next_charge_at: "2027-03-11T08:00:00.000Z",
      });
    },
  );

  it("uses the merchant's own schedule", () => {
    const policy = { ...DEFAULT_CHARGE_POLICY, dunningScheduleDays: [2] };
    const first = afterClose(subscription(), attempt(), policy);
    expect(first.update.set.next_charge_at).toBe("2027-03-12T08:00:00.000Z");
    const second = afterClose(
      subscription({ dunning: { step: 1, reason: "declined", since: now.toISOString() } }),
      attempt(),
      policy,
    );
    expect(second.update.set.status).toBe("canceled");
  });

  it("leaves the subscription past_due after the last retry when the merchant's final action says so", () => {
    const policy = {
      ...DEFAULT_CHARGE_POLICY,
      dunningScheduleDays: [2],
      dunningFinalAction: "past_due" as const,
    };
    const exhausted = afterClose(
      subscription({
        status: "past_due",
        dunning: { step: 1, reason: "declined", since: now.toISOString() },
      }),
      attempt(),
      policy,
    );
    expect(exhausted.update.set).toMatchObject({ status: "past_due", status_reason: "dunning_exhausted" });
    expect(exhausted.update.remove).toContain("next_charge_at");
    // Already past_due: no status change, nothing announced (the charge's close announced the decline).
    expect(exhausted.events).toEqual([]);
  });
});

describe("a renewal paid", () => {
  it("advances to the next period, clears dunning and reactivates a past_due subscription", () => {
    const { update, events } = afterClose(
      subscription({ status: "past_due", attempt: 2 }),
      attempt({ attempt: 2, status: "succeeded", transaction_id: "T1" }),
    );
    expect(update.expect).toEqual({
      period: 2,
      attempt: 2,
      status: "past_due",
      cancel_at: null,
      revision: 0,
    });
    expect(update.set).toMatchObject({
      status: "active",
      period: 3,
      attempt: 0,
      // Period 3 starts three months after the anchor.
      next_charge_at: "2027-04-10T08:00:00.000Z",
    });
    expect(update.remove).toEqual(["dunning", "status_reason"]);
    expect(events.map(({ type }) => type)).toEqual(["subscription.reactivated", "subscription.updated"]);
  });

  it("announces the paid period when an active subscription stays active: the charge's close announced the charge", () => {
    const { events } = afterClose(subscription(), attempt({ status: "succeeded" }));
    expect(events).toMatchObject([
      {
        type: "subscription.updated",
        changed: ["current_period"],
        subscription: { current_period: { index: 2, start: "2027-03-10T08:00:00.000Z" } },
      },
    ]);
  });
});

describe("every transition", () => {
  it("expects the revision it read, writes the next, and places its events at the start of that revision", () => {
    const read = subscription({ revision: 4, status: "past_due", attempt: 2, metadata: { plan: "gold" } });
    const { update, events } = afterClose(read, attempt({ attempt: 2, status: "succeeded" }));
    expect(update.expect.revision).toBe(4);
    expect(update.set.revision).toBe(5);
    expect(events.map(({ type, sequence }) => [type, sequence])).toEqual([
      ["subscription.reactivated", 5000],
      ["subscription.updated", 5001],
    ]);
    for (const event of events) {
      expect(event.subscription).toMatchObject({ status: "active", metadata: { plan: "gold" } });
      // What the bus and the webhooks carry: the strict view, nothing stored beyond it (no token, no customer).
      expect(billingEventSchema.parse(event)).toEqual(event);
    }
  });

  it("counts a subscription written before revisions from 0", () => {
    const { expect: expected, set, events } = transitionOf(subscription(), { kind: "cancel_at_period_end" });
    expect([expected.revision, set.revision, events[0]?.sequence]).toEqual([0, 1, 1000]);
  });
});

describe("retryDelaySeconds", () => {
  it("doubles from the base and stops at the queue's 900 s limit", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => retryDelaySeconds(DEFAULT_CHARGE_POLICY, n))).toEqual([
      30, 60, 120, 240, 480, 900, 900, 900,
    ]);
  });
});

describe("a cancel scheduled for the end of the paid period", () => {
  const scheduled = subscription({ cancel_at: "2027-03-10T08:00:00.000Z" });

  it("is scheduled at the next charge's instant, announced once, for an active subscription billed here", () => {
    const { set, events } = transitionOf(subscription(), { kind: "cancel_at_period_end" });
    expect(set).toMatchObject({ cancel_at: "2027-03-10T08:00:00.000Z" });
    expect(events).toMatchObject([
      {
        type: "subscription.cancel_scheduled",
        subscription_id: "sub_test",
        cancel_at: "2027-03-10T08:00:00.000Z",
      },
    ]);
    expect(nextStep(scheduled, { kind: "cancel_at_period_end" }, now)).toEqual({ kind: "unchanged" });
    expect(
      nextStep(subscription({ status: "past_due" }), { kind: "cancel_at_period_end" }, now),
    ).toMatchObject({
      kind: "refused",
    });
    expect(
      nextStep(subscription({ billing_mode: "recurring" }), { kind: "cancel_at_period_end" }, now),
    ).toMatchObject({ kind: "refused" });
  });

  it("ends the subscription once the period is over, not before", () => {
    expect(nextStep(scheduled, { kind: "period_ended" }, new Date("2027-03-10T07:59:59.999Z"))).toMatchObject(
      {
        kind: "refused",
      },
    );
    const { set, remove, events } = transitionOf(scheduled, { kind: "period_ended" });
    expect(set).toMatchObject({ status: "canceled", status_reason: "canceled_at_period_end" });
    expect(remove).toEqual(["next_charge_at", "cancel_at"]);
    expect(events.map((event) => event.type)).toEqual(["subscription.canceled"]);
  });

  it("follows a charge that was in flight: paid, the new period runs out first; refused, it ends now", () => {
    const paid = afterClose(scheduled, attempt({ status: "succeeded" }));
    expect(paid.update.set).toMatchObject({ period: 3, cancel_at: "2027-04-10T08:00:00.000Z" });
    const refusedCharge = afterClose(scheduled, attempt());
    expect(refusedCharge.update.set).toMatchObject({
      status: "canceled",
      status_reason: "canceled_at_period_end",
    });
    expect(refusedCharge.events.map((event) => event.type)).toEqual(["subscription.canceled"]);
  });

  it("is undone by an update, announced as subscription.updated", () => {
    const { remove, events } = transitionOf(scheduled, {
      kind: "update_customer",
      cancel_at_period_end: false,
    });
    expect(remove).toContain("cancel_at");
    expect(events).toEqual([
      expect.objectContaining({ type: "subscription.updated", changed: ["cancel_at"] }),
    ]);
  });
});

describe("retry now (the customer portal)", () => {
  it("retry now brings a past_due subscription's next retry forward, and nothing else", () => {
    const overdue = subscription({ status: "past_due", next_charge_at: "2027-04-13T12:00:00.000Z" });
    const step = nextStep(overdue, { kind: "retry_now" }, now);
    expect(step).toMatchObject({
      kind: "transition",
      update: { set: { next_charge_at: now.toISOString() } },
    });
    expect(
      nextStep(
        subscription({ status: "past_due", next_charge_at: now.toISOString() }),
        { kind: "retry_now" },
        now,
      ),
    ).toEqual({
      kind: "unchanged",
    });
    expect(
      nextStep(subscription({ status: "past_due", next_charge_at: undefined }), { kind: "retry_now" }, now),
    ).toEqual({ kind: "refused", reason: "the card on file cannot pay: a new card is needed" });
    expect(nextStep(subscription({}), { kind: "retry_now" }, now)).toEqual({
      kind: "refused",
      reason: "nothing is overdue here",
    });
  });
});

describe("a decision priced on what was read", () => {
  const upgrade = { amount: "29.90", currency: "USD", interval_months: 1 };
  const started = (current: Subscription, read: Subscription = current) =>
    nextStep(
      current,
      { kind: "plan_change_started", plan: upgrade, order_id: "sub_test-5000-0", priced_on: pricedOn(read) },
      now,
    );

  it("starts a prorated change only on the plan, period and anchor its proration was priced on", () => {
    const read = subscription({ period: 3, next_charge_at: "2027-04-10T08:00:00.000Z" });
    // Another write that changed nothing it was priced on (metadata): the start is taken on the fresh subscription.
    const fresh = { ...read, metadata: { seats: "3" }, updated_at: now.toISOString(), revision: 1 };
    expect(started(fresh, read)).toMatchObject({ kind: "transition", update: { expect: { period: 3 } } });
    // Another change's plan, a renewal, a re-anchored schedule: nothing is started, the plan is named.
    const replaced = started({ ...read, plan: upgrade }, read);
    expect(replaced).toEqual({
      kind: "refused",
      reason: "the proration was priced on a plan since replaced: the plan is 29.90 USD every 1 month",
    });
    expect(started({ ...read, period: 4 }, read).kind).toBe("refused");
    expect(started({ ...read, anchor_at: now.toISOString(), anchor_period: 3 }, read).kind).toBe("refused");
  });

  it("makes a change asked to be prorated that owed nothing only on the plan it found nothing owed on", () => {
    const read = subscription({ plan: { amount: "39.90", currency: "USD", interval_months: 1 } });
    const input = { kind: "adjust_plan", plan: upgrade, at: "now", priced_on: pricedOn(read) } as const;
    expect(nextStep(read, input, now).kind).toBe("transition");
    // Another change moved the plan below it: the same change would now be owed, so this one is not made.
    expect(nextStep({ ...read, plan: { ...upgrade, amount: "9.90" } }, input, now)).toEqual({
      kind: "refused",
      reason: "the proration was priced on a plan since replaced: the plan is 9.90 USD every 1 month",
    });
  });

  it("records a new card's payment only on the period and attempt it paid, with the card it replaces", () => {
    const overdue = subscription({ status: "past_due", attempt: 1 });
    const paid = attempt({ attempt: 1, order_id: "sub_test-2-1", status: "succeeded" });
    const input = { kind: "payment_method_updated", token_id: "tok_2", paid } as const;
    expect(transitionOf(overdue, input).expect).toMatchObject({ period: 2, attempt: 1, token_id: "tok_1" });
    // The charge run paid the period meanwhile: the payment is not counted again for the next one.
    expect(nextStep({ ...overdue, period: 3, attempt: 0, status: "active" }, input, now).kind).toBe(
      "refused",
    );
    expect(nextStep({ ...overdue, attempt: 2 }, input, now).kind).toBe("refused");
  });

  it("cancels only on the status and period it was decided on (its refund is priced on what the cancel wrote)", () => {
    const { expect: expected } = transitionOf(subscription(), {
      kind: "cancel",
      reason: "canceled_by_merchant",
    });
    expect(expected).toMatchObject({ status: "active", period: 2 });
  });
});

describe("a checkout past its end (checkout_expired)", () => {
  const pending = (expiresAt: string | undefined) =>
    subscription({
      status: "pending",
      period: 0,
      attempt: 1,
      next_charge_at: undefined,
      token_id: undefined,
      revision: 2,
      checkout_expires_at: expiresAt,
    });
  const expire = (current: Subscription) => nextStep(current, { kind: "checkout_expired" }, now);

  it("cancels it at the try as read and announces checkout.expired alone, never subscription.canceled", () => {
    const { events, ...update } = transitionOf(pending(now.toISOString()), { kind: "checkout_expired" });
    expect(update.expect).toEqual({ status: "pending", period: 0, attempt: 1, revision: 2 });
    expect(update.set).toMatchObject({ status: "canceled", status_reason: "checkout_expired", revision: 3 });
    expect(events).toHaveLength(1);
    expect(billingEventSchema.parse(events[0])).toMatchObject({
      type: "checkout.expired",
      purpose: "signup",
      expires_at: now.toISOString(),
      sequence: 3000,
      subscription: { status: "canceled", status_reason: "checkout_expired" },
    });
  });

  it("refuses one not yet at its end, one without an end, and one no longer pending", () => {
    expect(expire(pending("2027-03-10T08:00:00.001Z"))).toMatchObject({ kind: "refused" });
    expect(expire(pending(undefined))).toMatchObject({ kind: "refused" });
    for (const status of ["active", "canceled"] as const)
      expect(expire({ ...pending(now.toISOString()), status })).toMatchObject({ kind: "refused" });
  });
});
