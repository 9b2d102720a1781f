import { describe, expect, it } from "vitest";
import { z } from "zod";
import { orderIdFor } from "../../../functions/core/base/order-id";
import { periodCharge } from "../../../functions/core/base/plan-price";
import { eventsOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Coupons through the merchant API (README, Coupons): created once, redeemed at sign-up or later by id or code, each
// period charge less the discount while it lasts (rounded in the customer's favour), the end announced; a whole
// discount charges nothing at the gateway; max_redemptions and redeem_by hold under concurrency.

const {
  call,
  stack,
  salesByPeriod: salesOf,
} = merchantApiOnStack("mk_test_1a2b3c4d5e6f708192a3b4c5d6e7f809");

const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };
const customer = { name: "Ada Lovelace", email: "ada@example.com" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };

const couponView = z.looseObject({ coupon_id: z.string(), times_redeemed: z.number(), valid: z.boolean() });
const discountView = z.looseObject({ coupon_id: z.string(), charges_left: z.number().nullable() }).nullable();
const view = z.looseObject({
  subscription_id: z.string(),
  discount: discountView,
  next_charge_at: z.string().nullable(),
});
const chargeList = z.object({
  charges: z.array(
    z.looseObject({
      period: z.number(),
      amount: z.string(),
      amount_before_discount: z.string(),
      discount: z.string(),
    }),
  ),
});

let codes = 0;
/** A coupon with a code of its own (codes are unique per account, and every test shares the stack). */
async function createCoupon(body: object) {
  codes += 1;
  const answer = await call("POST", "/v1/coupons", { body: { code: `TEST${codes}`, ...body } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  return couponView.parse(answer.json);
}
const signUp = (body: object) =>
  call("POST", "/v1/subscriptions", { body: { customer, plan, card, ...body } });
async function signUpWith(coupon: string, extra: object = {}) {
  const answer = await signUp({ coupon, ...extra });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  return view.parse(answer.json);
}
const getView = async (id: string) => view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
const chargesOf = async (id: string) =>
  chargeList
    .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json)
    .charges.map((line) => [line.period, line.amount, line.amount_before_discount, line.discount]);
const renew = async (id: string) => renewAfter(stack(), (await getView(id)).next_charge_at);

describe("coupons", () => {
  it("takes a repeating percentage off the sign-up and the next charge, rounded for the customer, then ends it", async () => {
    const coupon = await createCoupon({ percent_off: 15, duration: "repeating", duration_in_months: 2 });
    const id = (await signUpWith(`test${codes}`, { quantity: 3 })).subscription_id;
    expect((await getView(id)).discount).toMatchObject({ coupon_id: coupon.coupon_id, charges_left: 1 });
    await renew(id);
    await renew(id);
    // 59.70 less 15 % (8.955, rounded up to 8.96) twice, then the whole total.
    expect(salesOf(id)).toEqual([
      [0, "50.74"],
      [1, "50.74"],
      [2, "59.70"],
    ]);
    expect(await chargesOf(id)).toEqual([
      [0, "50.74", "59.70", "8.96"],
      [1, "50.74", "59.70", "8.96"],
      [2, "59.70", "59.70", "0.00"],
    ]);
    expect((await getView(id)).discount).toBeNull();
    const updates = (await eventsOf(stack(), id)).filter((event) => event.type === "subscription.updated");
    // The sign-up used the first of its two charges, the first renewal the last.
    expect(updates.map((event) => ("changed" in event ? event.changed : []))).toEqual([
      ["current_period", "discount"],
      ["current_period"],
    ]);
    const counted = couponView.parse((await call("GET", `/v1/coupons/${coupon.coupon_id}`)).json);
    expect(counted.times_redeemed).toBe(1);
  });

  it("applies an amount off later, from the next charge on, and removes a coupon with null", async () => {
    const once = await createCoupon({ amount_off: "5.00", currency: "USD", duration: "once" });
    const { subscription_id: id } = view.parse((await signUp({})).json);
    const applied = await call("POST", `/v1/subscriptions/${id}`, { body: { coupon: once.coupon_id } });
    expect(applied.status).toBe(200);
    expect(view.parse(applied.json).discount).toMatchObject({ coupon_id: once.coupon_id, charges_left: 1 });
    await renew(id);
    await renew(id);
    expect(salesOf(id)).toEqual([
      [0, "19.90"],
      [1, "14.90"],
      [2, "19.90"],
    ]);

    const forever = await createCoupon({ percent_off: 50, duration: "forever" });
    await call("POST", `/v1/subscriptions/${id}`, { body: { coupon: forever.coupon_id } });
    const removed = await call("POST", `/v1/subscriptions/${id}`, { body: { coupon: null } });
    expect(view.parse(removed.json).discount).toBeNull();
    await renew(id);
    expect(salesOf(id)).toContainEqual([3, "19.90"]);
  });

  it("makes a whole discount free: the card verified at sign-up, each period a zero line the gateway never sees", async () => {
    const free = await createCoupon({ percent_off: 100, duration: "forever" });
    const signedUp = await signUpWith(free.coupon_id);
    const id = signedUp.subscription_id;
    await renew(id);
    // The sign-up's sale is the card's verification (refunded); the renewal made none.
    expect(salesOf(id)).toEqual([[0, "0.01"]]);
    expect((await chargesOf(id)).at(-1)).toEqual([1, "0.00", "19.90", "19.90"]);
    const charged = (await eventsOf(stack(), id)).filter((event) => event.type === "charge.succeeded");
    expect(charged).toHaveLength(2);
  });

  it("pays a zero line a worker left open as it stands, never asking the gateway about an order it never saw", async () => {
    const free = await createCoupon({ percent_off: 100, duration: "forever" });
    const { subscription_id: id, next_charge_at: due } = await signUpWith(free.coupon_id);
    // A worker claimed period 1's zero line and died before closing it: its lease ends when the period is due.
    const subscription = await stack().services.repository.getSubscription(id);
    if (subscription === undefined || due === null) throw new Error("no subscription due");
    const key = { subscription_id: id, period: 1, attempt: 0 };
    const claimed = await stack().services.repository.claimAttempt({
      ...key,
      order_id: orderIdFor(key),
      ...periodCharge(subscription),
      status: "pending",
      lease_until: due,
      created_at: due,
      updated_at: due,
    });
    expect(claimed).toEqual({ claimed: true });
    const retrieves = () => stack().sandbox.faults.counters().byRoute["payments.retrieve"]?.requests ?? 0;
    const asked = retrieves();

    await renewAfter(stack(), due);
    expect((await chargesOf(id)).at(-1)).toEqual([1, "0.00", "19.90", "19.90"]);
    expect((await getView(id)).next_charge_at).not.toBe(due);
    expect(salesOf(id)).toEqual([[0, "0.01"]]);
    // Retrieve takes only amounts greater than 0: asking it would have failed on every try, the period never paid.
    expect(retrieves()).toBe(asked);
  });

  it("never lets more subscriptions redeem a coupon than max_redemptions, however many race", async () => {
    const capped = await createCoupon({ percent_off: 10, duration: "once", max_redemptions: 2 });
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        signUp({ coupon: capped.coupon_id, customer: { ...customer, external_id: `race-${index}` } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 409, 409, 409]);
    for (const answer of answers.filter((each) => each.status === 409))
      expect(errorOf(answer).message).toContain("max_redemptions");
    const counted = couponView.parse((await call("GET", `/v1/coupons/${capped.coupon_id}`)).json);
    expect(counted).toMatchObject({ times_redeemed: 2, valid: false });
  });

  it("gives a capped coupon's turn back when the sign-up that redeemed it is declined", async () => {
    const capped = await createCoupon({ percent_off: 10, duration: "forever", max_redemptions: 1 });
    const declined = await signUp({
      coupon: capped.coupon_id,
      card: { ...card, number: "4000000000000002" },
    });
    expect(declined.status).toBe(422);
    const released = couponView.parse((await call("GET", `/v1/coupons/${capped.coupon_id}`)).json);
    expect(released).toMatchObject({ times_redeemed: 0, valid: true });
    const paid = await signUpWith(capped.coupon_id, { customer: { ...customer, external_id: "pays" } });
    expect(paid.discount).toMatchObject({ coupon_id: capped.coupon_id });
    const counted = couponView.parse((await call("GET", `/v1/coupons/${capped.coupon_id}`)).json);
    expect(counted).toMatchObject({ times_redeemed: 1, valid: false });
  });

  it("refuses a coupon past redeem_by with a 409, charging and writing nothing", async () => {
    const now = stack().clock.now();
    const dated = await createCoupon({
      percent_off: 10,
      duration: "once",
      redeem_by: new Date(now.getTime() + 86_400_000).toISOString(),
    });
    await stack().clock.set(new Date(now.getTime() + 2 * 86_400_000));
    const sales = [...stack().sandbox.state.payments.payments()].length;
    const late = await signUp({ coupon: dated.coupon_id });
    expect(late.status).toBe(409);
    expect(errorOf(late).message).toContain("redeem_by");
    expect([...stack().sandbox.state.payments.payments()]).toHaveLength(sales);
  });

  it("refuses bad coupons naming the field, and writes nothing", async () => {
    const bad: [object, string][] = [
      [{ percent_off: 10, amount_off: "1.00", currency: "USD", duration: "once" }, "percent_off"],
      [{ duration: "once" }, "percent_off"],
      [{ percent_off: 0, duration: "once" }, "percent_off"],
      [{ percent_off: 100.5, duration: "once" }, "percent_off"],
      [{ percent_off: 12.345, duration: "once" }, "percent_off"],
      [{ amount_off: "1.00", duration: "once" }, "currency"],
      [{ amount_off: "1.5", currency: "KRW", duration: "once" }, "amount_off"],
      [{ percent_off: 10, duration: "repeating" }, "duration_in_months"],
      [{ percent_off: 10, duration: "once", duration_in_months: 3 }, "duration_in_months"],
      [{ percent_off: 10, duration: "sometimes" }, "duration"],
      [{ percent_off: 10, duration: "once", max_redemptions: 0 }, "max_redemptions"],
      [{ percent_off: 10, duration: "once", redeem_by: "2000-01-01T00:00:00Z" }, "redeem_by"],
      [{ percent_off: 10, duration: "once", code: "no spaces" }, "code"],
    ];
    const listed = async () =>
      z.object({ data: z.array(z.unknown()) }).parse((await call("GET", "/v1/coupons?limit=100")).json).data;
    const before = await listed();
    for (const [body, field] of bad) {
      const answer = await call("POST", "/v1/coupons", { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer).field, JSON.stringify(body)).toBe(field);
    }
    const taken = await createCoupon({ percent_off: 10, duration: "once" });
    const again = await call("POST", "/v1/coupons", {
      body: { percent_off: 20, duration: "once", code: `test${codes}` },
    });
    expect(again.status).toBe(409);
    expect(await listed()).toHaveLength(before.length + 1);

    expect((await call("GET", "/v1/coupons/co_nosuchcoupon")).status).toBe(404);
    expect(errorOf(await call("GET", "/v1/coupons/nope")).field).toBe("id");
    expect(errorOf(await call("GET", "/v1/coupons?cursor=zz")).field).toBe("cursor");

    const subscriptions = async () => (await call("GET", "/v1/subscriptions?limit=100")).json;
    const kept = await subscriptions();
    const inKrw = await createCoupon({ amount_off: "1000", currency: "KRW", duration: "once" });
    for (const [body, field] of [
      [{ coupon: "NO-SUCH-CODE" }, "coupon"],
      [{ coupon: inKrw.coupon_id }, "coupon"],
      [{ coupon: taken.coupon_id, billing: "recurring" }, "coupon"],
      [{ coupon: "x" }, "coupon"],
    ] as const) {
      const answer = await signUp(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer).field).toBe(field);
    }
    expect(await subscriptions()).toEqual(kept);
    expect(couponView.parse((await call("GET", `/v1/coupons/${taken.coupon_id}`)).json).times_redeemed).toBe(
      0,
    );
  });
});
