import { describe, expect, it } from "vitest";
import { z } from "zod";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { clockIntoPeriod, eventsOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Seats through the merchant API (README, Seats): each period charges the unit amount times the seats; more seats now
// may pay the rest of the paid period at once (charge_now, the one change protocol), fewer wait for the next renewal
// unless asked for now, when refund_now gives their unused part back; each change is announced as subscription.updated
// naming quantity.

const {
  call,
  stack,
  salesByPeriod: salesOf,
} = merchantApiOnStack("mk_test_1a2b3c4d5e6f708192a3b4c5d6e7f809");

const planSchema = z.object({
  amount: z.string(),
  currency: z.string(),
  interval_months: z.number(),
  quantity: z.number(),
});
const view = z.looseObject({
  subscription_id: z.string(),
  plan: planSchema,
  scheduled_plan: planSchema.nullable(),
  next_charge_at: z.string().nullable(),
  current_period: z.object({ index: z.number(), start: z.string(), end: z.string() }).nullable(),
});

const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };
const customer = { name: "Ada Lovelace", email: "ada@example.com" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };

const signUp = (body: object) =>
  call("POST", "/v1/subscriptions", { body: { customer, plan, card, ...body } });
const signUpSeats = async (quantity: number) => {
  const answer = await signUp({ quantity });
  expect(answer.status).toBe(201);
  return view.parse(answer.json);
};
const getView = async (id: string) => view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
const adjust = (id: string, body: object, idempotencyKey?: string) =>
  call("POST", `/v1/subscriptions/${id}/adjust`, { body, idempotencyKey });

/** The sandbox's refunds of a subscription's charges, as [order_id, amount]. */
const refundsOf = (id: string) =>
  [...stack().sandbox.state.payments.refunds()]
    .filter((refund) => attemptKeyOf(refund.orderId)?.subscription_id === id)
    .map((refund) => [refund.orderId, refund.amount]);

const changesOf = async (id: string) =>
  (await eventsOf(stack(), id))
    .filter((event) => event.type === "subscription.updated")
    .map((event) => ("changed" in event ? event.changed : []));

describe("seats", () => {
  it("charges the unit amount times the seats at sign-up and every renewal", async () => {
    const signedUp = await signUpSeats(3);
    expect(signedUp.plan).toEqual({ ...plan, quantity: 3 });
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(signedUp.subscription_id)).toEqual([
      [0, "59.70"],
      [1, "59.70"],
    ]);
  });

  it("charges more seats' share of the paid period at once with charge_now, once per change, and the new total from the next renewal", async () => {
    const signedUp = await signUpSeats(3);
    const id = signedUp.subscription_id;
    const left = await clockIntoPeriod(stack(), signedUp.current_period, 10);
    const body = { quantity: 5, proration: "charge_now" };
    const answers = await Promise.all(["seats-1", "seats-2", "seats-3"].map((key) => adjust(id, body, key)));
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const again = await adjust(id, body, "seats-4");
    expect(again.status).toBe(200);
    expect(view.parse(again.json).plan).toEqual({ ...plan, quantity: 5 });
    // Two more seats at 19.90 for what is left of the period, rounded down to the cent.
    const proration = (Math.floor(3980 * left) / 100).toFixed(2);
    expect(salesOf(id)).toEqual([
      [0, "59.70"],
      [5000, proration],
    ]);
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toContainEqual([1, "99.50"]);
    expect(await changesOf(id)).toEqual([["quantity"], ["current_period"]]);
  });

  it("takes fewer seats at the next renewal unless asked for now, and charges nothing for them", async () => {
    const signedUp = await signUpSeats(4);
    const id = signedUp.subscription_id;
    await clockIntoPeriod(stack(), signedUp.current_period, 10);
    const scheduled = view.parse((await adjust(id, { quantity: 2 })).json);
    expect(scheduled.plan.quantity).toBe(4);
    expect(scheduled.scheduled_plan).toEqual({ ...plan, quantity: 2 });
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toEqual([
      [0, "79.60"],
      [1, "39.80"],
    ]);
    expect((await getView(id)).plan.quantity).toBe(2);
    expect(await changesOf(id)).toEqual([["scheduled_plan"], ["quantity", "current_period"]]);

    const now = view.parse((await adjust(id, { quantity: 1, at: "now", proration: "charge_now" })).json);
    expect(now).toMatchObject({ plan: { ...plan, quantity: 1 }, scheduled_plan: null });
    expect(salesOf(id)).toHaveLength(2);
  });

  it("gives the unused part of fewer seats back at once with refund_now, once per change however many race, and charges the new total from the next renewal", async () => {
    const signedUp = await signUpSeats(4);
    const id = signedUp.subscription_id;
    const left = await clockIntoPeriod(stack(), signedUp.current_period, 10);
    const body = { quantity: 2, proration: "refund_now" };
    const answers = await Promise.all(["fewer-1", "fewer-2", "fewer-3"].map((key) => adjust(id, body, key)));
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const again = await adjust(id, body, "fewer-4");
    expect(again.status).toBe(200);
    expect(view.parse(again.json)).toMatchObject({ plan: { ...plan, quantity: 2 }, scheduled_plan: null });
    // Two seats fewer at 19.90 for what is left of the period, rounded down to the cent, given back from its charge.
    const credit = (Math.floor(3980 * left) / 100).toFixed(2);
    expect(refundsOf(id)).toEqual([[`${id}-0-0`, credit]]);
    const charges = (await call("GET", `/v1/subscriptions/${id}/charges`)).json;
    expect(charges).toMatchObject({ charges: [{ order_id: `${id}-0-0`, refunded_amount: credit }] });
    const refunded = (await eventsOf(stack(), id)).filter((event) => event.type === "refund.succeeded");
    expect(refunded).toHaveLength(1);

    // Back up again with refund_now: nothing goes back for an increase, and nothing is charged for it.
    expect((await adjust(id, { quantity: 3, proration: "refund_now" }, "more-1")).status).toBe(200);
    expect(refundsOf(id)).toHaveLength(1);
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toEqual([
      [0, "79.60"],
      [1, "59.70"],
    ]);
    expect(await changesOf(id)).toEqual([["quantity"], ["quantity"], ["current_period"]]);
  });

  it("gives back the unused part of fewer seats of a paused subscription, whose paid period still runs", async () => {
    const signedUp = await signUpSeats(2);
    const id = signedUp.subscription_id;
    const left = await clockIntoPeriod(stack(), signedUp.current_period, 10);
    expect((await call("POST", `/v1/subscriptions/${id}/pause`, { body: {} })).status).toBe(200);
    expect((await adjust(id, { quantity: 1, proration: "refund_now" })).status).toBe(200);
    expect(refundsOf(id)).toEqual([[`${id}-0-0`, (Math.floor(1990 * left) / 100).toFixed(2)]]);
  });

  it("refuses refund_now for a change scheduled for the next renewal, naming proration, and credits nothing", async () => {
    const signedUp = await signUpSeats(3);
    const id = signedUp.subscription_id;
    const answer = await adjust(id, { quantity: 1, proration: "refund_now", at: "next_renewal" });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).field).toBe("proration");
    expect((await getView(id)).plan.quantity).toBe(3);
    expect(refundsOf(id)).toEqual([]);
  });

  it("changes the unit amount and the seats in one change", async () => {
    const signedUp = await signUpSeats(2);
    const id = signedUp.subscription_id;
    const changed = view.parse((await adjust(id, { amount: "9.90", quantity: 3 })).json);
    expect(changed.plan).toEqual({ ...plan, amount: "9.90", quantity: 3 });
    expect(await changesOf(id)).toEqual([["plan", "quantity"]]);
  });

  it("refuses bad seats naming quantity, and writes nothing", async () => {
    const listed = async () => (await call("GET", "/v1/subscriptions?limit=100")).json;
    const before = await listed();
    for (const quantity of [0, -1, 1.5, "3", 10_001]) {
      const answer = await signUp({ quantity });
      expect(answer.status, String(quantity)).toBe(400);
      expect(errorOf(answer).field).toBe("quantity");
    }
    const huge = await signUp({ quantity: 2, plan: { ...plan, amount: "99999999.99" } });
    expect(huge.status).toBe(400);
    expect(errorOf(huge)).toMatchObject({ field: "quantity" });
    expect(errorOf(huge).message).toContain("at most 99999999.99");
    expect(await listed()).toEqual(before);

    const signedUp = await signUpSeats(2);
    const id = signedUp.subscription_id;
    const kept = await getView(id);
    const nothing = await adjust(id, {});
    expect(nothing.status).toBe(400);
    expect(errorOf(nothing).field).toBe("amount");
    for (const quantity of [0, 2.5, 10_001]) {
      const answer = await adjust(id, { quantity });
      expect(answer.status, String(quantity)).toBe(400);
      expect(errorOf(answer).field).toBe("quantity");
    }
    const tooMuch = await adjust(id, { amount: "99999999.99" });
    expect(tooMuch.status).toBe(400);
    expect(errorOf(tooMuch).field).toBe("quantity");
    expect(await getView(id)).toEqual(kept);
  });
});
