import { describe, expect, it } from "vitest";
import { z } from "zod";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// The catalog through the merchant API (README, Catalog): prices made once, listed and found by lookup key, archived
// without touching the subscriptions that have them; a sign-up or checkout takes a price instead of a plan.

const { call, stack } = merchantApiOnStack("mk_test_1a2b3c4d5e6f708192a3b4c5d6e7f809");

const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };
const customer = { name: "Ada Lovelace", email: "ada@example.com" };

const priceView = z.looseObject({
  price_id: z.string(),
  active: z.boolean(),
  lookup_key: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
});
const listView = z.object({ data: z.array(priceView), next_cursor: z.string().nullable() });
const subscriptionView = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  plan: z.looseObject({
    amount: z.string(),
    price_id: z.string().optional(),
    product: z.string().optional(),
  }),
  trial_end: z.string().nullable(),
});

let made = 0;
async function createPrice(body: object = {}) {
  made += 1;
  const answer = await call("POST", "/v1/prices", {
    body: {
      product: { name: `Pro ${made}` },
      amount: "29.00",
      currency: "USD",
      interval_months: 12,
      lookup_key: `pro_${made}`,
      ...body,
    },
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  return priceView.parse(answer.json);
}
const signUp = (body: object) => call("POST", "/v1/subscriptions", { body: { customer, card, ...body } });
const list = async (query: string) => listView.parse((await call("GET", `/v1/prices${query}`)).json);

describe("the catalog", () => {
  it("signs up on a price by id or lookup key: its amount, interval and trial, its id and product in the view", async () => {
    const annual = await createPrice({ product: { name: "Pro yearly" } });
    const byKey = subscriptionView.parse((await signUp({ price: `pro_${made}`, quantity: 2 })).json);
    expect(byKey.plan).toMatchObject({
      amount: "29.00",
      interval_months: 12,
      quantity: 2,
      price_id: annual.price_id,
      product: "Pro yearly",
    });
    const sales = [...stack().sandbox.state.payments.payments()].filter(
      (sale) => attemptKeyOf(sale.orderId)?.subscription_id === byKey.subscription_id,
    );
    expect(sales.map((sale) => sale.amount)).toEqual(["58.00"]);

    const trial = await createPrice({ trial_days: 14, interval_months: 1 });
    const trialing = subscriptionView.parse((await signUp({ price: trial.price_id })).json);
    expect(trialing).toMatchObject({ status: "trialing", plan: { price_id: trial.price_id } });
    expect(trialing.trial_end).not.toBeNull();
  });

  it("lists prices a page at a time, by activity, or by lookup key, and reads one", async () => {
    const first = await createPrice();
    const second = await createPrice();
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: z.infer<typeof listView> = await list(
        `?limit=1${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      ids.push(...page.data.map((price) => price.price_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(ids).toEqual(expect.arrayContaining([first.price_id, second.price_id]));
    expect((await list(`?lookup_key=${second.lookup_key}`)).data).toEqual([second]);
    expect((await call("GET", `/v1/prices/${first.price_id}`)).json).toEqual(first);
  });

  it("archives a price: no new subscription takes it (409), the one that has it keeps it; restored, it takes them again", async () => {
    const price = await createPrice({ interval_months: 1 });
    const kept = subscriptionView.parse((await signUp({ price: price.price_id })).json);
    const archived = await call("POST", `/v1/prices/${price.price_id}`, { body: { active: false } });
    expect(priceView.parse(archived.json).active).toBe(false);
    expect((await list("?active=false")).data.map((each) => each.price_id)).toContain(price.price_id);
    expect((await list("?active=true")).data.map((each) => each.price_id)).not.toContain(price.price_id);
    const refused = await signUp({ price: price.price_id });
    expect(refused.status).toBe(409);
    expect(errorOf(refused).message).toContain("archived");
    const still = subscriptionView.parse(
      (await call("GET", `/v1/subscriptions/${kept.subscription_id}`)).json,
    );
    expect(still).toMatchObject({ status: "active", plan: { price_id: price.price_id } });
    await call("POST", `/v1/prices/${price.price_id}`, { body: { active: true } });
    expect((await signUp({ price: price.price_id })).status).toBe(201);
  });

  it("moves a lookup key from price to price, never to two at once", async () => {
    const old = await createPrice();
    const key = old.lookup_key;
    const next = await createPrice();
    const taken = await call("POST", `/v1/prices/${next.price_id}`, { body: { lookup_key: key } });
    expect(taken.status).toBe(409);
    await call("POST", `/v1/prices/${old.price_id}`, { body: { lookup_key: null } });
    const moved = await call("POST", `/v1/prices/${next.price_id}`, {
      body: { lookup_key: key, metadata: { tier: "pro" } },
    });
    expect(priceView.parse(moved.json)).toMatchObject({ lookup_key: key, metadata: { tier: "pro" } });
    expect((await list(`?lookup_key=${key}`)).data.map((price) => price.price_id)).toEqual([next.price_id]);
    const duplicate = await call("POST", "/v1/prices", {
      body: {
        product: { name: "Again" },
        amount: "1.00",
        currency: "USD",
        interval_months: 1,
        lookup_key: key,
      },
    });
    expect(duplicate.status).toBe(409);
  });

  it("refuses bad prices and bad references naming the field, and writes nothing", async () => {
    const valid = { product: { name: "Pro" }, amount: "29.00", currency: "USD", interval_months: 1 };
    const before = await list("?limit=100");
    for (const [body, field] of [
      [{ ...valid, amount: "0" }, "amount"],
      [{ ...valid, amount: "1.5", currency: "KRW" }, "amount"],
      [{ ...valid, currency: "XXX" }, "currency"],
      [{ ...valid, interval_months: 37 }, "interval_months"],
      [{ ...valid, trial_days: 0 }, "trial_days"],
      [{ ...valid, lookup_key: "has space" }, "lookup_key"],
      [{ ...valid, product: { name: "" } }, "product.name"],
      [{ ...valid, product: undefined }, "product"],
    ] as const) {
      const answer = await call("POST", "/v1/prices", { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer).field, JSON.stringify(body)).toBe(field);
    }
    expect(await list("?limit=100")).toEqual(before);

    const price = await createPrice({ interval_months: 12 });
    for (const [body, field] of [
      [{}, undefined],
      [{ amount: "30.00" }, "amount"],
      [{ active: "no" }, "active"],
    ] as const) {
      const answer = await call("POST", `/v1/prices/${price.price_id}`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer).field, JSON.stringify(body)).toBe(field);
    }
    expect((await call("POST", "/v1/prices/price_nosuch", { body: { active: false } })).status).toBe(404);
    expect((await call("GET", "/v1/prices/price_nosuch")).status).toBe(404);
    expect(errorOf(await call("GET", "/v1/prices/nope")).field).toBe("id");

    const subscriptions = async () => (await call("GET", "/v1/subscriptions?limit=100")).json;
    const kept = await subscriptions();
    const plan = { amount: "19.90", currency: "USD", interval_months: 1 };
    for (const [body, field] of [
      [{ price: "no_such_price" }, "price"],
      [{ price: price.price_id, plan }, "price"],
      [{}, "plan"],
      [{ price: price.price_id, billing: "recurring" }, "price"],
    ] as const) {
      const answer = await signUp(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(answer).field, JSON.stringify(body)).toBe(field);
    }
    expect(await subscriptions()).toEqual(kept);
  });
});
