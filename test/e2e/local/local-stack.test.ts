import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LocalStack } from "../../../local/stack/local-stack";

/** A whole local run in one case: ~45 s alone, longer on a CI machine whose other worker runs the emulators too. */
const LONG_RUN_MS = 120_000;

// The whole system as `npm start` runs it, driven through the merchant API only: sign-ups, clock jumps that fire
// the charge runs, a renewal, a decline into dunning, a cancel.

const subscription = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  current_period: z.object({ index: z.number() }),
  dunning: z.object({ step: z.number(), reason: z.string() }).optional(),
});
const chargeList = z.object({
  charges: z.array(z.looseObject({ period: z.number(), attempt: z.number(), status: z.string() })),
});

const card = (number: string) => ({ number, expiry: "203012", cvc: "123" });
const signupBody = (number: string, email: string) => ({
  customer: { name: "Local Customer", email },
  plan: { amount: "19.90", currency: "USD", interval_months: 1 },
  card: card(number),
});

/** Sockets, servers and timers of this process, by type. */
function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

describe("local stack (npm start)", () => {
  let local: LocalStack;
  let before: Record<string, number>;

  const call = async (method: string, path: string, body?: unknown, apiKey: string | null = local.apiKey) => {
    const response = await fetch(`${local.url}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  };
  const getSubscription = async (id: string) =>
    subscription.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
  const chargesOf = async (id: string) =>
    chargeList.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;

  beforeAll(async () => {
    before = openHandles();
    local = await LocalStack.start({
      port: 0,
      sandboxPort: 0,
      realTime: false,
      start: new Date("2027-03-01T10:00:00Z"),
    });
  });

  afterAll(async () => {
    await local?.close();
  });

  it("generates an API key and refuses requests without it", async () => {
    expect(local.generatedApiKey).toBe(local.apiKey);
    expect((await call("GET", "/v1/subscriptions/sub_x", undefined, null)).status).toBe(401);
    expect(
      (await call("GET", "/v1/subscriptions/sub_x", undefined, "mk_wrong_key_0123456789abcdef")).status,
    ).toBe(401);
    // What no route takes is answered in the merchant API's envelope (the $default route), with Allow for a path
    // served under other methods.
    expect(await call("GET", "/nowhere")).toEqual({
      status: 404,
      json: { error: { code: "not_found", message: "no such route" } },
    });
    const wrongMethod = await fetch(`${local.url}/v1/subscriptions`, { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST, GET");
    expect(await wrongMethod.json()).toEqual({
      error: { code: "method_not_allowed", message: "this method is not allowed here" },
    });
    const openapi = await call("GET", "/openapi.json", undefined, null);
    expect(openapi.status).toBe(200);
    expect(openapi.json).toMatchObject({ openapi: "3.1.0", servers: [{ url: local.url }] });
  });

  it(
    "bills through sign-up, renewal, decline, dunning and cancel",
    async () => {
      const good = await call(
        "POST",
        "/v1/subscriptions",
        signupBody("4111111111111111", "good@example.com"),
      );
      const failing = await call(
        "POST",
        "/v1/subscriptions",
        signupBody("4000000000000341", "rebill@example.com"),
      );
      expect([good.status, failing.status]).toEqual([201, 201]);
      const goodId = subscription.parse(good.json).subscription_id;
      const failingId = subscription.parse(failing.json).subscription_id;

      const jumped = await call("POST", "/local/clock", { advance: "P31D" });
      expect(jumped).toEqual({ status: 200, json: { now: "2027-04-01T10:00:00.000Z" } });

      // Renewed: period 1 paid, the next one current.
      expect(await getSubscription(goodId)).toMatchObject({ status: "active", current_period: { index: 1 } });
      expect((await chargesOf(goodId)).map(({ period, status }) => [period, status])).toEqual([
        [0, "succeeded"],
        [1, "succeeded"],
      ]);
      // Declined on REBILL: past due, in dunning.
      const pastDue = await getSubscription(failingId);
      expect(pastDue).toMatchObject({ status: "past_due", dunning: { step: 1 } });

      // Dunning retries a day later and declines again.
      await call("POST", "/local/clock", { advance: "P2D" });
      expect((await getSubscription(failingId)).dunning?.step).toBeGreaterThanOrEqual(2);
      const attempts = (await chargesOf(failingId)).filter((charge) => charge.period === 1);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      expect(attempts.every((charge) => charge.status === "declined")).toBe(true);

      const canceled = await call("DELETE", `/v1/subscriptions/${failingId}`);
      expect(canceled).toMatchObject({ status: 200, json: { status: "canceled" } });
      expect((await getSubscription(failingId)).status).toBe("canceled");
      // The charge worker deletes the canceled subscription's token at the gateway.
      await call("POST", "/local/clock", { advance: "PT1M" });
      const tokens = [...local.stack.sandbox.state.tokens.all()];
      expect(tokens.find((token) => token.card.last4 === "0341")?.status).toBe("deleted");
    },
    LONG_RUN_MS,
  );

  it(
    "activates a window sign-up from the real-form callback, with its card, and renews it by token",
    async () => {
      const checkout = await call("POST", "/v1/checkouts", {
        customer: { name: "Window Customer", email: "window@example.com" },
        plan: { amount: "29.00", currency: "USD", interval_months: 1 },
        billing: "token",
      });
      expect(checkout.status).toBe(201);
      const { subscription_id: id, fgkey } = z
        .object({ subscription_id: z.string(), fgkey: z.string() })
        .parse(checkout.json);
      const completed = await fetch(`${local.sandboxUrl}/sandbox/windows/${fgkey}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card_number: "5555555555554444", expiry_date: "203012", cvc: "123" }),
      });
      expect(completed.status).toBe(200);
      await call("POST", "/local/clock", { advance: "PT1M" });
      // What reached our status_url: the real gateway's form, posted, without a status.
      const [callback] = local.stack.sandbox.deliveries.entries("status_url").slice(-1);
      expect(callback).toMatchObject({ form: "real", method: "POST", acknowledged: true });
      const result = new URLSearchParams(callback?.body);
      expect([result.has("order_id"), result.has("status")]).toEqual([true, false]);
      expect(await getSubscription(id)).toMatchObject({
        status: "active",
        current_period: { index: 0 },
        card: { first4: "5555", last4: "4444" },
      });

      const rebills = () =>
        local.stack.sandbox.faults.counters().byRoute["payments.tokenbilling.rebill"]?.requests ?? 0;
      const before = rebills();
      await call("POST", "/local/clock", { advance: "P31D" });
      expect((await chargesOf(id)).map(({ period, status }) => [period, status])).toEqual([
        [0, "succeeded"],
        [1, "succeeded"],
      ]);
      expect(rebills()).toBeGreaterThan(before);
    },
    LONG_RUN_MS,
  );

  it("answers a bad clock request with the field, and moves nothing", async () => {
    const now = local.clock.now().toISOString();
    const refused = await call("POST", "/local/clock", { advance: "31 days" });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { field: "advance" } });
    expect(local.clock.now().toISOString()).toBe(now);
  });

  it("leaves no server, socket or timer open once closed", async () => {
    await local.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = openHandles();
    for (const kind of ["TCPServerWrap", "TCPSocketWrap", "Timeout"]) {
      expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(before[kind] ?? 0);
    }
  });
});
