import {
  BillingApiError,
  type BillingClient,
  createBillingClient,
  isReplayed,
  listAll,
  ok,
} from "recurring-billing-client";
import { expect } from "vitest";

// A SaaS's whole use of the merchant API, through the typed client package against local mode (`npm start`): a
// sign-up, lists walked by their cursors, a renewal by the local clock, a refund, an upgrade, a pause and a resume,
// a checkout, a portal session, prices and coupons, webhook endpoints, invoices and credit notes, a cancel — and every
// refusal the README lists (405 and 415 the typed client cannot send: the proxy test sends them raw). The e2e tests run it straight and through a validating proxy of the OpenAPI document.

const VISA = "4111111111111111";
const DECLINES = "4000000000009995";

/** Where the lifecycle runs: the API's base URL (local mode's, or a proxy in front of it) and its key. */
export interface LifecycleTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The gateway sandbox behind it, whose controls take the gateway down for a while. */
  readonly sandboxUrl: string;
  /** Makes the keys and external ids of one run its own. */
  readonly run: string;
  /** The fetch every call goes through (default: the global one). */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** What the run saw, for its test to hold to what the API promises. */
export interface LifecycleRecord {
  readonly subscriptionId: string;
  readonly refusals: Readonly<
    Record<string, { status: number; code: string; field?: string; reason?: string }>
  >;
}

const refusalOf = async (call: Promise<unknown>) => {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof BillingApiError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return {
    status: error.status,
    code: error.code,
    ...(error.field === undefined ? {} : { field: error.field }),
    ...(error.decline?.reason === undefined ? {} : { reason: error.decline.reason }),
  };
};

/** `during` while the sandbox refuses every gateway request (its fault controls), then the gateway back. */
async function whileTheGatewayIsDown<T>(sandboxUrl: string, during: () => Promise<T>): Promise<T> {
  const faults = (settings: object) =>
    fetch(`${sandboxUrl}/sandbox/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(settings),
    });
  await faults({ throttleRate: 1 });
  try {
    return await during();
  } finally {
    await faults({});
  }
}

export async function merchantLifecycle(target: LifecycleTarget): Promise<LifecycleRecord> {
  const billing: BillingClient = createBillingClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    retryDelayMs: 50,
    maxRetryDelayMs: 500,
    ...(target.fetch === undefined ? {} : { fetch: target.fetch }),
  });
  const customer = { name: "Ada Lovelace", email: "ada@example.com", external_id: `cus_${target.run}` };
  const plan = { amount: "19.90", currency: "USD", interval_months: 1 };
  const card = { number: VISA, expiry: "203012", cvc: "123" };

  // A sign-up, repeated with its key: the same subscription, marked as a replay.
  const signUp = { body: { customer, plan, card }, headers: { "Idempotency-Key": `signup-${target.run}` } };
  const created = await billing.POST("/v1/subscriptions", signUp);
  expect(created.response.status).toBe(201);
  const subscriptionId = created.data?.subscription_id ?? "";
  const again = await billing.POST("/v1/subscriptions", signUp);
  expect(again.data?.subscription_id).toBe(subscriptionId);
  expect(isReplayed(again.response)).toBe(true);

  const listed = [];
  for await (const each of listAll(billing, "/v1/subscriptions", {
    query: { external_id: customer.external_id },
  }))
    listed.push(each.subscription_id);
  expect(listed).toEqual([subscriptionId]);

  // A month on the local clock: the renewal.
  await ok(billing.POST("/local/clock", { body: { advance: "P1M" } }));
  const path = { path: { id: subscriptionId } };
  const { charges } = await ok(billing.GET("/v1/subscriptions/{id}/charges", { params: path }));
  expect(charges.map((charge) => [charge.period, charge.status])).toEqual([
    [0, "succeeded"],
    [1, "succeeded"],
  ]);

  const [first] = charges;
  const refund = await ok(
    billing.POST("/v1/charges/{id}/refunds", {
      params: { path: { id: first?.charge_id ?? "" } },
      body: { amount: "1.00", reason: "goodwill" },
    }),
  );
  expect(refund.status).toBe("succeeded");
  const upgraded = await ok(
    billing.POST("/v1/subscriptions/{id}/adjust", {
      params: path,
      body: { amount: "29.90", proration: "charge_now" },
    }),
  );
  expect(upgraded.plan.amount).toBe("29.90");
  expect((await ok(billing.POST("/v1/subscriptions/{id}/pause", { params: path, body: {} }))).status).toBe(
    "paused",
  );
  expect((await ok(billing.POST("/v1/subscriptions/{id}/resume", { params: path }))).status).toBe("active");

  const checkout = await ok(
    billing.POST("/v1/checkouts", {
      body: { customer: { ...customer, email: "checkout@example.com" }, plan, billing: "token" },
    }),
  );
  expect(checkout.checkout_url).toMatch(/^http/);
  const portal = await ok(billing.POST("/v1/portal-sessions", { body: { subscription_id: subscriptionId } }));
  expect(portal.url).toMatch(/^http/);

  const price = await ok(
    billing.POST("/v1/prices", {
      body: { product: { name: "Team" }, amount: "49.00", currency: "USD", interval_months: 1 },
    }),
  );
  expect(
    (await ok(billing.GET("/v1/prices/{id}", { params: { path: { id: price.price_id } } }))).active,
  ).toBe(true);
  const coupon = await ok(
    billing.POST("/v1/coupons", {
      body: { percent_off: 10, duration: "once", code: `WELCOME${target.run}` },
    }),
  );
  expect(
    (await ok(billing.GET("/v1/coupons/{id}", { params: { path: { id: coupon.coupon_id } } }))).code,
  ).toBe(coupon.code);
  let prices = 0;
  for await (const _ of listAll(billing, "/v1/prices")) prices += 1;
  expect(prices).toBeGreaterThan(0);

  const endpoint = await ok(
    billing.POST("/v1/webhook-endpoints", { body: { url: "http://127.0.0.1:9/hooks", events: ["*"] } }),
  );
  expect(endpoint.secret).toMatch(/^whsec_/);
  expect((await ok(billing.GET("/v1/webhook-endpoints"))).data.map((each) => each.id)).toContain(endpoint.id);
  await ok(billing.GET("/v1/webhook-endpoints/{id}/deliveries", { params: { path: { id: endpoint.id } } }));
  await ok(billing.DELETE("/v1/webhook-endpoints/{id}", { params: { path: { id: endpoint.id } } }));

  const invoices = [];
  for await (const invoice of listAll(billing, "/v1/invoices", {
    query: { subscription_id: subscriptionId },
  }))
    invoices.push(invoice.number);
  expect(invoices.length).toBeGreaterThanOrEqual(2);
  await ok(billing.GET("/v1/invoices/{number}", { params: { path: { number: invoices[0] ?? "" } } }));
  const creditNotes = await ok(
    billing.GET("/v1/credit-notes", { params: { query: { subscription_id: subscriptionId } } }),
  );
  expect(creditNotes.data.length).toBeGreaterThanOrEqual(1);
  await ok(billing.GET("/v1/charges/{id}/receipt", { params: { path: { id: first?.charge_id ?? "" } } }));

  const canceled = await ok(billing.DELETE("/v1/subscriptions/{id}", { params: path }));
  expect(canceled.status).toBe("canceled");

  const wrongKey = createBillingClient({
    baseUrl: target.baseUrl,
    apiKey: "mk_test_wrong_key_0000",
    maxRetries: 0,
    ...(target.fetch === undefined ? {} : { fetch: target.fetch }),
  });
  const refusals = {
    invalid: await refusalOf(
      ok(
        billing.POST("/v1/subscriptions", { body: { customer, plan, card: { ...card, expiry: "2030-12" } } }),
      ),
    ),
    declined: await refusalOf(
      ok(
        billing.POST("/v1/subscriptions", { body: { customer, plan, card: { ...card, number: DECLINES } } }),
      ),
    ),
    unknown: await refusalOf(
      ok(billing.GET("/v1/subscriptions/{id}", { params: { path: { id: "sub_zzzzzzzzzzzzzzzz" } } })),
    ),
    keyReused: await refusalOf(
      ok(
        billing.POST("/v1/subscriptions", {
          ...signUp,
          body: { ...signUp.body, plan: { ...plan, amount: "9.90" } },
        }),
      ),
    ),
    canceled: await refusalOf(
      ok(billing.POST("/v1/subscriptions/{id}/charges", { params: path, body: { amount: "5.00" } })),
    ),
    unauthorized: await refusalOf(ok(wrongKey.GET("/v1/subscriptions"))),
    gatewayDown: await whileTheGatewayIsDown(target.sandboxUrl, () =>
      refusalOf(ok(billing.POST("/v1/subscriptions", { body: { customer, plan, card } }))),
    ),
  };
  return { subscriptionId, refusals };
}
