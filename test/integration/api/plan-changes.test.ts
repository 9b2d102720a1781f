import { describe, expect, it } from "vitest";
import { z } from "zod";
import { addMonthsClamped } from "../../../functions/core/base/billing-period";
import { clockIntoPeriod, eventsOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Plan changes through the merchant API (README, Subscription lifecycle: adjust_plan): an upgrade with charge_now pays
// the prorated difference at once, exactly once per Idempotency-Key; a downgrade owes nothing and takes effect at the
// next charge; a change scheduled for the next renewal (always so for a new interval) is charged then and re-anchors
// the schedule on the new interval.

const {
  call,
  stack,
  signUp: signUpAnswer,
  salesByPeriod: salesOf,
} = merchantApiOnStack("mk_test_1a2b3c4d5e6f708192a3b4c5d6e7f809");

const planSchema = z.object({ amount: z.string(), currency: z.string(), interval_months: z.number() });
const view = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  plan: planSchema,
  scheduled_plan: planSchema.nullable(),
  next_charge_at: z.string().nullable(),
  current_period: z.object({ index: z.number(), start: z.string(), end: z.string() }).nullable(),
});

const signUp = async (cardNumber?: string) => view.parse(await signUpAnswer("token", cardNumber));
const getView = async (id: string) => view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
const adjust = (id: string, body: object, idempotencyKey?: string) =>
  call("POST", `/v1/subscriptions/${id}/adjust`, { body, idempotencyKey });

describe("plan changes", () => {
  it("charges an upgrade's prorated difference at once, once per key, and the new amount from the next renewal", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const left = await clockIntoPeriod(stack(), signedUp.current_period, 10);
    const upgraded = await adjust(id, { amount: "29.90", proration: "charge_now" }, "upgrade-1");
    expect(upgraded.status).toBe(200);
    expect(view.parse(upgraded.json).plan.amount).toBe("29.90");
    const proration = (Math.floor(1000 * left) / 100).toFixed(2);
    expect(salesOf(id)).toEqual([
      [0, "19.90"],
      [5000, proration],
    ]);
    // The same request again charges nothing more.
    expect((await adjust(id, { amount: "29.90", proration: "charge_now" }, "upgrade-1")).status).toBe(200);
    expect(salesOf(id)).toHaveLength(2);

    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toContainEqual([1, "29.90"]);
  });

  it("charges nothing for a downgrade, which takes effect at the next charge", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    await clockIntoPeriod(stack(), signedUp.current_period, 5);
    const downgraded = await adjust(id, { amount: "9.90", proration: "charge_now" });
    expect(view.parse(downgraded.json).plan.amount).toBe("9.90");
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toEqual([
      [0, "19.90"],
      [1, "9.90"],
    ]);
  });

  it("schedules a new interval for the next renewal, charges it then, and re-anchors the schedule on it", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const scheduled = view.parse((await adjust(id, { amount: "50.00", interval_months: 3 })).json);
    expect(scheduled).toMatchObject({
      plan: { amount: "19.90", interval_months: 1 },
      scheduled_plan: { amount: "50.00", interval_months: 3 },
      next_charge_at: signedUp.next_charge_at,
    });

    await renewAfter(stack(), signedUp.next_charge_at);
    const renewed = await getView(id);
    const renewalStart = new Date(signedUp.next_charge_at ?? "");
    expect(renewed).toMatchObject({
      plan: { amount: "50.00", interval_months: 3 },
      scheduled_plan: null,
      current_period: {
        index: 1,
        start: renewalStart.toISOString(),
        end: addMonthsClamped(renewalStart, 3).toISOString(),
      },
      next_charge_at: addMonthsClamped(renewalStart, 3).toISOString(),
    });
    expect(salesOf(id)).toEqual([
      [0, "19.90"],
      [1, "50.00"],
    ]);
    const updates = (await eventsOf(stack(), id)).filter((event) => event.type === "subscription.updated");
    expect(updates.map((event) => ("changed" in event ? event.changed : []))).toEqual([
      ["scheduled_plan"],
      ["plan", "current_period"],
    ]);
  });

  it("refuses, changing nothing, what it cannot do", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const bad = await adjust(id, { amount: "29.90", proration: "charge_now", at: "next_renewal" });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("proration");
    const now = await adjust(id, { amount: "29.90", interval_months: 6, at: "now" });
    expect(now.status).toBe(409);
    expect(errorOf(now).message).toContain("next renewal");

    // A declined proration changes nothing.
    const declining = await signUp("4000000000000341");
    await clockIntoPeriod(stack(), declining.current_period, 10);
    const declined = await adjust(declining.subscription_id, { amount: "29.90", proration: "charge_now" });
    expect(declined.status).toBe(422);
    expect((await getView(declining.subscription_id)).plan.amount).toBe("19.90");
    expect((await getView(id)).plan.amount).toBe("19.90");
  });
});

describe("concurrent plan changes", () => {
  it("charges one upgrade once however many requests race with distinct keys, and nothing for the plan it already has", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const left = await clockIntoPeriod(stack(), signedUp.current_period, 10);
    // A write at the clock's instant: a whole change written in that instant leaves updated_at as the racers read it.
    const noted = await call("POST", `/v1/subscriptions/${id}`, { body: { metadata: { seats: "3" } } });
    expect(noted.status).toBe(200);
    const body = { amount: "29.90", proration: "charge_now" };
    const answers = await Promise.all(["race-1", "race-2", "race-3"].map((key) => adjust(id, body, key)));
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    const again = await adjust(id, body, "race-4");
    expect(again.status).toBe(200);
    expect(view.parse(again.json).plan.amount).toBe("29.90");
    const proration = (Math.floor(1000 * left) / 100).toFixed(2);
    expect(salesOf(id)).toEqual([
      [0, "19.90"],
      [5000, proration],
    ]);
  });
});
