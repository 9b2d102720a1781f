import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MERCHANT_API_ROUTES } from "../../../functions/api/merchant-api-routes";
import { isAdHocPeriod } from "../../../functions/core/base/charge-kind";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { type ApiAnswer, type ApiCall, errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

/*
 * The merchant API as deployed: API Gateway v2 events through the Lambda authorizer and the wrapped handlers, whose
 * services come from the environment (dynalite, local-aws-sqs, the Secrets Manager stand-in) and whose gateway is the
 * sandbox. The functions run on the real clock.
 */

const { api, call, stack } = merchantApiOnStack("mk_test_7c1d0e5f9a2b4c6d8e0f1a3b5c7d9e1f");

const customer = { name: "Grace Hopper", email: "grace@example.com" };
const plan = { amount: "49.00", currency: "USD", interval_months: 1 };
const signUpBody = (number = "5555555555554444") => ({
  customer,
  plan,
  card: { number, expiry: "203012", cvc: "123" },
});

const idOf = (answer: ApiAnswer) =>
  z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;

/** Sales at the sandbox on a subscription's ad hoc lines. */
function adHocSales(subscriptionId: string) {
  return [...stack().sandbox.state.payments.payments()].filter((payment) => {
    const key = attemptKeyOf(payment.orderId);
    return payment.status === "SALE" && key?.subscription_id === subscriptionId && isAdHocPeriod(key.period);
  });
}

describe("a subscription's life through the merchant API", () => {
  let id: string;

  it("signs up with a test card: 201 with the masked card only", async () => {
    const answer = await call("POST", "/v1/subscriptions", {
      body: signUpBody(),
      idempotencyKey: "signup-1",
    });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ status: "active", card: { first4: "5555", last4: "4444" } });
    expect(answer.text).not.toContain("5555555555554444");
    id = idOf(answer);

    const again = await call("POST", "/v1/subscriptions", { body: signUpBody(), idempotencyKey: "signup-1" });
    expect(again.json).toEqual(answer.json);
  });

  it("reads it", async () => {
    const answer = await call("GET", `/v1/subscriptions/${id}`);
    expect(answer).toMatchObject({
      status: 200,
      json: { subscription_id: id, plan, current_period: { index: 0 } },
    });
  });

  it("adjusts its amount", async () => {
    const answer = await call("POST", `/v1/subscriptions/${id}/adjust`, {
      body: { amount: "59.00" },
      idempotencyKey: "adjust-1",
    });
    expect(answer).toMatchObject({ status: 200, json: { plan: { amount: "59.00" } } });
  });

  it("charges ad hoc exactly once under a repeated Idempotency-Key, even sent concurrently", async () => {
    const charge = () =>
      call("POST", `/v1/subscriptions/${id}/charges`, {
        body: { amount: "12.34" },
        idempotencyKey: "adhoc-1",
      });
    const concurrent = await Promise.all([charge(), charge(), charge()]);
    const repeated = [await charge(), await charge()];

    const [first] = repeated;
    expect(first).toMatchObject({
      status: 201,
      json: { kind: "ad_hoc", amount: "12.34", status: "succeeded" },
    });
    for (const answer of [...concurrent, ...repeated]) {
      if (answer.status === 409) expect(errorOf(answer).code).toBe("request_in_progress");
      else expect(answer.json).toEqual(first?.json);
    }
    expect(adHocSales(id)).toHaveLength(1);

    const another = await call("POST", `/v1/subscriptions/${id}/charges`, { idempotencyKey: "adhoc-2" });
    expect(another).toMatchObject({ status: 201, json: { amount: "59.00" } });
    expect(adHocSales(id)).toHaveLength(2);
    const listed = await call("GET", `/v1/subscriptions/${id}/charges`);
    expect(z.object({ charges: z.array(z.object({ kind: z.string() })) }).parse(listed.json).charges).toEqual(
      [
        expect.objectContaining({ kind: "scheduled" }),
        expect.objectContaining({ kind: "ad_hoc" }),
        expect.objectContaining({ kind: "ad_hoc" }),
      ],
    );
  });

  it("refunds an ad hoc charge once per key, and never beyond its balance", async () => {
    const ledger = z
      .object({ charges: z.array(z.object({ charge_id: z.string(), kind: z.string() })) })
      .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json);
    const line = ledger.charges.find((charge) => charge.kind === "ad_hoc");
    const path = `/v1/charges/${line?.charge_id}/refunds`;
    const refund = () =>
      call("POST", path, { body: { amount: "2.34", reason: "duplicate item" }, idempotencyKey: "rf-1" });

    const first = await refund();
    const again = await refund();
    const rest = await call("POST", path, { body: { reason: "the rest" }, idempotencyKey: "rf-2" });
    const more = await call("POST", path, { body: { reason: "more" }, idempotencyKey: "rf-3" });

    expect(first).toMatchObject({ status: 201, json: { amount: "2.34", status: "succeeded" } });
    expect(again.json).toEqual(first.json);
    expect(rest).toMatchObject({ status: 201, json: { amount: "10.00" } });
    expect(more.status).toBe(422);
    const refunds = [...stack().sandbox.state.payments.refunds()].filter(
      (entry) => entry.orderId === line?.charge_id,
    );
    expect(refunds.map((entry) => Number(entry.amount))).toEqual([2.34, 10]);
  });

  it("cancels it; an ad hoc charge is then refused", async () => {
    const canceled = await call("DELETE", `/v1/subscriptions/${id}`);
    expect(canceled).toMatchObject({ status: 200, json: { status: "canceled" } });
    const charge = await call("POST", `/v1/subscriptions/${id}/charges`, { idempotencyKey: "adhoc-3" });
    expect(charge.status).toBe(409);
    expect(errorOf(charge).code).toBe("subscription_canceled");
  });
});

/**
 * The instant `months` calendar months after `start` (UTC): the same day and time, or the month's last day when it is
 * shorter (a sign-up on 29 February 2028 renews on 28 February 2029).
 */
function monthsAfter(start: string, months: number): string {
  const from = new Date(start);
  const end = new Date(from);
  end.setUTCDate(1);
  end.setUTCMonth(from.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
  end.setUTCDate(Math.min(from.getUTCDate(), lastDay));
  return end.toISOString();
}

describe("plan intervals", () => {
  const salesAtTheGateway = () => [...stack().sandbox.state.payments.payments()].length;

  it("signs up token plans of 12 and 36 months, their first period as long as the plan", async () => {
    for (const interval_months of [12, 36]) {
      const answer = await call("POST", "/v1/subscriptions", {
        body: { ...signUpBody(), plan: { ...plan, interval_months } },
      });
      expect(answer.status).toBe(201);
      const view = z
        .object({
          plan: z.object({ interval_months: z.number() }),
          current_period: z.object({ start: z.string(), end: z.string() }),
        })
        .parse(answer.json);
      expect(view.plan.interval_months).toBe(interval_months);
      expect(view.current_period.end).toBe(monthsAfter(view.current_period.start, interval_months));
    }
  });

  it("refuses a gateway-managed plan past the gateway's 10 months, saying why, and asks the gateway nothing", async () => {
    const before = salesAtTheGateway();
    const refusals = [
      await call("POST", "/v1/subscriptions", {
        body: { ...signUpBody(), plan: { ...plan, interval_months: 12 }, billing: "recurring" },
      }),
      await call("POST", "/v1/checkouts", {
        body: { customer, plan: { ...plan, interval_months: 11 }, billing: "recurring" },
      }),
      await call("POST", "/v1/subscriptions", {
        body: { ...signUpBody(), plan: { ...plan, interval_months: 37 } },
      }),
    ];
    for (const answer of refusals) {
      expect(answer.status).toBe(400);
      expect(errorOf(answer).field).toBe("plan.interval_months");
    }
    expect(errorOf(refusals[0] as ApiAnswer).message).toMatch(/at most 10 with billing "recurring"/);
    expect(salesAtTheGateway()).toBe(before);
  });
});

describe("refusals", () => {
  it("answers 422 with the decline code for a declining card", async () => {
    const answer = await call("POST", "/v1/subscriptions", { body: signUpBody("4000000000000002") });
    expect(answer.status).toBe(422);
    expect(errorOf(answer).code).toBe("DC05");
    expect(answer.text).not.toContain("4000000000000002");
  });

  it("answers 503 while the gateway refuses requests, and keeps nothing: the same key then succeeds", async () => {
    stack().sandbox.faults.configure({ throttleRate: 1 });
    const down = await call("POST", "/v1/subscriptions", {
      body: signUpBody(),
      idempotencyKey: "signup-503",
    });
    stack().sandbox.faults.configure({});
    expect(down.status).toBe(503);
    expect(down.headers["retry-after"]).toBeDefined();
    const up = await call("POST", "/v1/subscriptions", { body: signUpBody(), idempotencyKey: "signup-503" });
    expect(up.status).toBe(201);
  });

  it("answers 401 without a key, with a malformed one or a wrong one; the OpenAPI document needs none", async () => {
    for (const apiKey of [undefined, "short", "mk_test_00000000000000000000000000000000"]) {
      const answer = await api("GET", "/v1/subscriptions/sub_0123456789abcdef", apiKey ? { apiKey } : {});
      expect(answer.status, String(apiKey)).toBe(401);
      expect(errorOf(answer).code).toBe("unauthorized");
    }
    const wrongPost = await api("POST", "/v1/subscriptions", {
      body: signUpBody(),
      apiKey: "mk_test_wrongwrongwrongwrong",
    });
    expect(wrongPost.status).toBe(401);
    expect((await api("GET", "/openapi.json")).status).toBe(200);
  });
});

describe("bad input never yields a 5xx", () => {
  const SUB = "sub_0123456789abcdef";
  const cases: readonly (readonly [string, string, ApiCall, string | undefined])[] = [
    ["POST", "/v1/checkouts", { rawBody: "{" }, undefined],
    ["POST", "/v1/checkouts", { body: {} }, "customer"],
    [
      "POST",
      "/v1/checkouts",
      { body: { customer, plan: { ...plan, amount: "1e3" }, billing: "token" } },
      "plan.amount",
    ],
    ["POST", "/v1/checkouts", { body: { customer, plan, billing: "weekly" } }, "billing"],
    [
      "POST",
      "/v1/checkouts",
      { body: { customer: { ...customer, email: "nope" }, plan, billing: "token" } },
      "customer.email",
    ],
    ["POST", "/v1/checkouts", { body: { customer, plan, billing: "token", color: "red" } }, "color"],
    ["POST", "/v1/subscriptions", { rawBody: "[]" }, undefined],
    ["POST", "/v1/subscriptions", { body: { customer, plan } }, "card"],
    [
      "POST",
      "/v1/subscriptions",
      { body: { ...signUpBody(), card: { ...signUpBody().card, expiry: "2030-12" } } },
      "card.expiry",
    ],
    [
      "POST",
      "/v1/subscriptions",
      { body: { ...signUpBody(), card: { ...signUpBody().card, cvc: "12" } } },
      "card.cvc",
    ],
    [
      "POST",
      "/v1/subscriptions",
      { body: { ...signUpBody(), plan: { ...plan, interval_months: 0 } } },
      "plan.interval_months",
    ],
    ["POST", "/v1/subscriptions", { body: signUpBody(), idempotencyKey: "has space" }, "Idempotency-Key"],
    ["GET", "/v1/subscriptions/bad%20id", {}, "id"],
    ["POST", `/v1/subscriptions/${SUB}/adjust`, { body: {} }, "amount"],
    ["POST", `/v1/subscriptions/${SUB}/adjust`, { body: { amount: 5 } }, "amount"],
    ["POST", `/v1/subscriptions/${SUB}/adjust`, { body: { amount: "0" } }, "amount"],
    ["POST", "/v1/subscriptions/x-y/adjust", { body: { amount: "5.00" } }, "id"],
    ["DELETE", "/v1/subscriptions/a.b", {}, "id"],
    ["POST", `/v1/subscriptions/${SUB}/charges`, { body: { amount: "abc" } }, "amount"],
    ["POST", `/v1/subscriptions/${SUB}/charges`, { body: { amount: "1.00", extra: 1 } }, "extra"],
    ["POST", `/v1/subscriptions/${SUB}/charges`, { rawBody: "nope" }, undefined],
    ["GET", "/v1/subscriptions/a+b/charges", {}, "id"],
    ["POST", `/v1/charges/${SUB}/refunds`, { body: { reason: "x" } }, "id"],
    ["POST", `/v1/charges/${SUB}-0-0/refunds`, { body: { amount: "1.00" } }, "reason"],
    ["POST", `/v1/charges/${SUB}-0-0/refunds`, { body: { reason: "x".repeat(201) } }, "reason"],
    ["POST", `/v1/charges/${SUB}-0-0/refunds`, { body: { reason: "x", amount: "-2" } }, "amount"],
    ["POST", `/v1/subscriptions/${SUB}/resume`, { body: { at: "now" } }, "at"],
    ["DELETE", "/v1/webhook-endpoints/we_zzzzzzzzzzzzzzzz", { body: { force: true } }, "force"],
  ];

  it("answers 400 naming the field for malformed requests on every route", async () => {
    for (const [method, path, options, field] of cases) {
      const answer = await call(method, path, options);
      const label = `${method} ${path} ${JSON.stringify(options)}`;
      expect(answer.status, label).toBe(400);
      expect(errorOf(answer).field, label).toBe(field);
    }
  });

  /** A well-formed id of each resource a write's path names. */
  const ID_OF_PATH: Record<string, string> = {
    subscriptions: SUB,
    charges: `${SUB}-0-0`,
    prices: "price_z1",
    "webhook-endpoints": "we_zzzzzzzzzzzzzzzz",
  };

  it("answers 415 to a write whose body is not sent as application/json, and acts on nothing of it", async () => {
    const before = await call("GET", "/v1/subscriptions?limit=100");
    const writes = MERCHANT_API_ROUTES.filter(
      (route) => route.auth === "bearer" && route.method !== "GET" && !route.localOnly,
    );
    expect(writes.length).toBeGreaterThan(15);
    for (const route of writes) {
      const path = route.path.replace("{id}", ID_OF_PATH[route.path.split("/")[2] ?? ""] ?? "");
      for (const contentType of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonp",
        "",
      ]) {
        const answer = await call(route.method, path, {
          rawBody: JSON.stringify(signUpBody()),
          headers: { "content-type": contentType },
          idempotencyKey: `media-${route.operationId}-${contentType}`,
        });
        const label = `${route.method} ${path} as ${contentType || "no type"}`;
        expect(answer.status, label).toBe(415);
        expect(errorOf(answer), label).toEqual({
          code: "unsupported_media_type",
          message: "the request body must be application/json",
          field: "Content-Type",
        });
        expect(answer.text).not.toContain("5555");
      }
    }
    // A sign-up sent as text/plain created nothing; under its own type, with a charset, it is taken.
    expect((await call("GET", "/v1/subscriptions?limit=100")).json).toEqual(before.json);
    const taken = await call("POST", "/v1/subscriptions", {
      body: signUpBody(),
      headers: { "content-type": "Application/JSON; charset=utf-8" },
    });
    expect(taken.status, taken.text).toBe(201);
  });

  it("answers junk bodies on every POST route with a 4xx", async () => {
    const junk = [
      "0",
      "true",
      '"text"',
      "null",
      '{"customer":null}',
      '{"plan":[]}',
      `{"a":${"[".repeat(200)}${"]".repeat(200)}}`,
    ];
    const posts = [
      "/v1/checkouts",
      "/v1/subscriptions",
      `/v1/subscriptions/${SUB}/adjust`,
      `/v1/subscriptions/${SUB}/charges`,
      `/v1/charges/${SUB}-0-0/refunds`,
    ];
    for (const path of posts) {
      for (const rawBody of junk) {
        const answer = await call("POST", path, { rawBody });
        expect(answer.status, `${path} ${rawBody.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${path} ${rawBody.slice(0, 20)}`).toBeLessThan(500);
      }
    }
  });
});
