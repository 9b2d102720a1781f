import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { periodStartOf } from "../../../../functions/core/base/billing-period";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import type { BillingEvent } from "../../../../functions/core/base/events";
import type {
  AttemptStatus,
  ChargeAttempt,
  Subscription,
  SubscriptionStatus,
} from "../../../../functions/core/base/model";
import { orderIdFor } from "../../../../functions/core/base/order-id";
import type { SubscriptionInput } from "../../../../functions/core/machine/subscription-input";
import { nextStep } from "../../../../functions/core/machine/subscription-machine";
import { stateAfter } from "../../../../functions/core/machine/transition";
import type {
  SubscriptionExpectation,
  SubscriptionUpdate,
} from "../../../../functions/core/ports/billing-repository";

// The state machine under random sequences of inputs (fast-check). Each input is taken against the subscription as
// read some transitions ago — a worker that read before others wrote — and its transition is written only if its
// expectations still hold, as the repository's conditional write does. Whatever the order, the invariants hold.

const START = Date.parse("2027-01-31T08:00:00.000Z");
/** Time between two inputs: periods end within a sequence, so scheduled cancels come due. */
const STEP_MS = 10 * 86_400_000;

/**
 * An input, its attempt placed relative to the subscription it is taken against. Weighted so that most sequences
 * live a while: the inputs that end one (cancel, a refused sign-up) are rarer than charges.
 */
const inputTemplate = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constantFrom("charge_closed" as const, "gateway_charge" as const),
      status: fc.constantFrom<AttemptStatus>("succeeded", "succeeded", "declined", "failed"),
      periodOffset: fc.constantFrom(0, 0, 0, -1, 1),
      attemptOffset: fc.constantFrom(0, 0, 0, -1, 1),
      rescode: fc.constantFrom(undefined, "1001", "TK01", "TK02", "S023"),
      errcode: fc.constantFrom(undefined, "EXPIRED_CARD", "INSUFFICIENT_FUNDS"),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom("charge_voided" as const, "card_refused" as const),
      periodOffset: fc.constantFrom(0, 0, -1),
      attemptOffset: fc.constantFrom(0, 0, 1),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("first_payment" as const), withToken: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("payment_method_updated" as const),
      token: fc.constantFrom("tok_2", "tok_3"),
      paid: fc.boolean(),
      periodOffset: fc.constantFrom(0, 0, -1),
      attemptOffset: fc.constantFrom(0, 0, 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("first_payment_refused" as const), retry: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("pause" as const),
      resumeAfterDays: fc.constantFrom(undefined, 5, 40),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("resume" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constantFrom("cancel_at_period_end" as const, "period_ended" as const) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("adjust_plan" as const),
      amount: fc.constantFrom("9.90", "19.90", "29.00"),
      interval_months: fc.constantFrom(1, 3),
      at: fc.constantFrom("now" as const, "next_renewal" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("update_customer" as const),
      external_id: fc.constantFrom(undefined, null, "acct_1", "acct_2"),
      metadata: fc.option(
        fc.dictionary(fc.constantFrom("plan", "seat", "team"), fc.constantFrom("", "a", "b")),
        {
          nil: undefined,
        },
      ),
      cancel_at_period_end: fc.constantFrom(undefined, false as const),
    }),
  },
);
type Template = typeof inputTemplate extends fc.Arbitrary<infer T> ? T : never;

function attemptOf(
  read: Subscription,
  template: Template & { readonly periodOffset: number },
): ChargeAttempt {
  const key = {
    subscription_id: read.subscription_id,
    period: Math.max(0, read.period + template.periodOffset),
    attempt: Math.max(0, read.attempt + ("attemptOffset" in template ? template.attemptOffset : 0)),
  };
  const at = new Date(START).toISOString();
  return {
    ...key,
    order_id: orderIdFor(key),
    // The charge engine charges a plan change scheduled for the renewal at its amount.
    amount: (read.scheduled_plan ?? read.plan).amount,
    currency: read.plan.currency,
    status:
      "status" in template
        ? template.status
        : template.kind === "payment_method_updated"
          ? "succeeded"
          : "voided",
    rescode: "rescode" in template ? template.rescode : undefined,
    errcode: "errcode" in template ? template.errcode : undefined,
    created_at: at,
    updated_at: at,
  };
}

function inputOf(read: Subscription, template: Template, now: number): SubscriptionInput {
  switch (template.kind) {
    case "pause":
      return {
        kind: "pause",
        resume_at:
          template.resumeAfterDays === undefined
            ? undefined
            : new Date(now + template.resumeAfterDays * 86_400_000).toISOString(),
      };
    case "resume":
      return { kind: "resume" };
    case "charge_closed":
      return { kind: "charge_closed", attempt: attemptOf(read, template), policy: DEFAULT_CHARGE_POLICY };
    case "gateway_charge":
      return { kind: "gateway_charge", attempt: attemptOf(read, template) };
    case "charge_voided":
    case "card_refused":
      return { kind: template.kind, attempt: attemptOf(read, template) };
    case "payment_method_updated":
      return {
        kind: "payment_method_updated",
        ...(read.billing_mode === "token" ? { token_id: template.token } : { recurring_id: template.token }),
        card: { first4: "5555", last4: "4444" },
        paid: template.paid ? attemptOf(read, template) : undefined,
      };
    case "first_payment":
      return template.withToken
        ? { kind: "first_payment", token_id: "tok_1", card: { first4: "4111", last4: "1111" } }
        : { kind: "first_payment" };
    case "first_payment_refused":
      return {
        kind: "first_payment_refused",
        attempt: read.attempt,
        reason: "declined",
        retry: template.retry,
      };
    case "cancel":
      return { kind: "cancel", reason: "canceled_by_merchant" };
    case "adjust_plan":
      return {
        kind: "adjust_plan",
        plan: { amount: template.amount, currency: "USD", interval_months: template.interval_months },
        at: template.at,
      };
    case "update_customer":
      return {
        kind: "update_customer",
        external_id: template.external_id,
        metadata: template.metadata,
        cancel_at_period_end: template.cancel_at_period_end,
      };
    case "cancel_at_period_end":
    case "period_ended":
      return { kind: template.kind };
  }
}

/** What the repository's conditional write checks: every expected field still holds. */
function holds(expect: SubscriptionExpectation, current: Subscription): boolean {
  return Object.entries(expect).every(([field, value]) => {
    const held = current[field as keyof Subscription];
    return value === null ? held === undefined : value === undefined || held === value;
  });
}

const STATUS_EVENTS: readonly string[] = [
  "subscription.trial_started",
  "subscription.activated",
  "subscription.reactivated",
  "subscription.resumed",
  "subscription.past_due",
  "subscription.paused",
  "subscription.canceled",
];

/** The status event a change to `to` must announce. */
function announces(from: SubscriptionStatus, to: SubscriptionStatus): BillingEvent["type"] {
  if (to === "trialing") return "subscription.trial_started";
  if (to === "active")
    return from === "pending" || from === "trialing"
      ? "subscription.activated"
      : from === "paused"
        ? "subscription.resumed"
        : "subscription.reactivated";
  if (to === "paused") return "subscription.paused";
  return to === "past_due" ? "subscription.past_due" : "subscription.canceled";
}

const subscriptionArb = fc.record({
  billing_mode: fc.constantFrom("token" as const, "recurring" as const),
  interval_months: fc.constantFrom(1, 3, 6),
  trial: fc.boolean(),
});

describe("the subscription state machine, under random inputs taken on stale reads", () => {
  it("pays no period twice, never leaves canceled, and announces every status change once", () => {
    fc.assert(
      fc.property(
        subscriptionArb,
        fc.array(fc.record({ template: inputTemplate, readAge: fc.constantFrom(0, 0, 1, 2) }), {
          maxLength: 40,
        }),
        ({ billing_mode, interval_months, trial }, inputs) => {
          const at = new Date(START).toISOString();
          const trialEnd = new Date(START + 14 * 86_400_000).toISOString();
          let current: Subscription = {
            subscription_id: "sub_prop",
            status: "pending",
            billing_mode,
            customer: { name: "Ada", email: "ada@example.com" },
            plan: { amount: "19.90", currency: "USD", interval_months },
            ...(trial ? { anchor_at: trialEnd, anchor_period: 1, trial_end: trialEnd } : { anchor_at: at }),
            period: 0,
            attempt: 0,
            created_at: at,
            updated_at: at,
          };
          const history: Subscription[] = [current];
          const paid = new Set<number>();
          for (const [index, { template, readAge }] of inputs.entries()) {
            const read = history[Math.max(0, history.length - 1 - readAge)] ?? current;
            const now = START + (index + 1) * STEP_MS;
            const input = inputOf(read, template, now);
            const step = nextStep(read, input, new Date(now));
            if (read.status === "canceled") expect(step.kind).toBe("refused");
            if (step.kind !== "transition") continue;
            const update: SubscriptionUpdate = step.update;
            // Every transition is guarded by the status it was decided on, and a charge's by its period and attempt,
            // so a stale one cannot apply.
            expect(update.expect.status).toBe(read.status);
            const charge =
              "attempt" in input && typeof input.attempt === "object"
                ? input.attempt
                : "paid" in input
                  ? input.paid
                  : undefined;
            if (charge !== undefined)
              expect(update.expect).toMatchObject({ period: charge.period, attempt: charge.attempt });
            for (const event of update.events ?? []) {
              expect(event.subscription_id).toBe("sub_prop");
              expect(event.type.startsWith("subscription.") || event.type === "payment_method.updated").toBe(
                true,
              );
            }
            if (!holds(update.expect, current)) continue;
            // The write applies: `read` and `current` agree on every field the transition was decided by.
            const next = stateAfter(current, update);
            if (current.status === "canceled") throw new Error("a transition out of canceled was written");
            if (next.period !== current.period) {
              expect(next.period).toBe(current.period + 1);
              expect(paid.has(current.period), `period ${current.period} paid twice`).toBe(false);
              paid.add(current.period);
            }
            const types = (update.events ?? []).map((event) => event.type);
            expect(types.filter((type) => STATUS_EVENTS.includes(type))).toEqual(
              next.status === current.status ? [] : [announces(current.status, next.status)],
            );
            // A scheduled cancel announces itself; only an active (or trialing) subscription billed here has one.
            const scheduled = current.cancel_at === undefined && next.cancel_at !== undefined;
            expect(types.includes("subscription.cancel_scheduled")).toBe(scheduled);
            if (next.cancel_at !== undefined) {
              expect(["active", "trialing"]).toContain(next.status);
              expect(next.billing_mode).toBe("token");
            }
            // What a SaaS keys on changed exactly when subscription.updated says so. Events carry external_id and
            // metadata as the transition decided them: a status change decided before an edit carries the old ones.
            const keyed = (state: Subscription) =>
              JSON.stringify([state.plan, state.scheduled_plan, state.customer.external_id, state.metadata]);
            const undone =
              current.cancel_at !== undefined && next.cancel_at === undefined && next.status !== "canceled";
            expect(types.includes("subscription.updated")).toBe(keyed(next) !== keyed(current) || undone);
            const decided = stateAfter(read, update);
            for (const event of update.events ?? [])
              expect([event.external_id, event.metadata]).toEqual([
                decided.customer.external_id,
                decided.metadata,
              ]);
            // A new card announces itself, and only a new card does (the first payment's token activates).
            const method = (state: Subscription) => `${state.token_id} ${state.recurring_id}`;
            expect(types.includes("payment_method.updated")).toBe(
              method(next) !== method(current) && current.status !== "pending",
            );
            if (next.status === "canceled") expect(next.next_charge_at).toBeUndefined();
            // A paid period moves the schedule to the next period's start, under the plan (and interval) now in force.
            if (next.period !== current.period && next.status === "active" && next.billing_mode === "token")
              expect(next.next_charge_at).toBe(periodStartOf(next, next.period).toISOString());
            // Nothing is charged while paused: the only due instant a paused subscription keeps is its resume.
            if (next.status === "paused") expect(next.next_charge_at).toBe(next.resume_at);
            if (next.status !== "paused") expect(next.resume_at).toBeUndefined();
            current = next;
            history.push(current);
          }
          // Periods paid are exactly those below the current one, each once.
          expect([...paid].sort((a, b) => a - b)).toEqual(
            Array.from({ length: current.period }, (_, p) => p),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
