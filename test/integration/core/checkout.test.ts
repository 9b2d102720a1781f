import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPaymentGateway } from "../../../functions/adapters/payment-gateway";
import {
  type Checkout,
  type CheckoutDeps,
  type CheckoutRequest,
  completeCheckout,
  startCheckout,
} from "../../../functions/core/checkout";
import { success } from "../../../functions/core/outcome";
import { startPaymentMethodWindow } from "../../../functions/core/payment-method-window";
import { computeFgkey } from "../../../functions/gateway/fgkey";
import { BillingStack } from "../../../local/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";

/*
 * The window sign-up (README, Merchant API: POST /v1/checkouts) against dynalite and the stateful sandbox: ready →
 * the customer completes the window (sandbox route) → the sandbox calls status_url (a local receiver here) →
 * completeCheckout verifies the query with the gateway before anything changes.
 */

const START = new Date("2027-03-15T10:00:00.000Z");
const VISA = "4111111111111111";
const INSUFFICIENT_FUNDS = "4000000000009995";

/** Our status_url: records each query string exactly as received. */
interface StatusReceiver {
  readonly url: string;
  readonly queries: string[];
  close(): Promise<void>;
}

async function startStatusReceiver(): Promise<StatusReceiver> {
  const queries: string[] = [];
  const server: Server = createServer((req, res) => {
    const target = req.url ?? "";
    const at = target.indexOf("?");
    if (target.startsWith("/webhooks/status") && at >= 0) queries.push(target.slice(at + 1));
    res.writeHead(200, { "content-type": "text/plain" }).end("OK");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("not listening on TCP");
  return {
    url: `http://127.0.0.1:${address.port}`,
    queries,
    close: () =>
      new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

let stack: BillingStack;
let receiver: StatusReceiver;
let deps: CheckoutDeps;

beforeAll(async () => {
  receiver = await startStatusReceiver();
  stack = await BillingStack.start({ start: START });
  deps = {
    ...stack.services,
    statusUrl: `${receiver.url}/webhooks/status`,
    defaultReturnUrl: "https://merchant.example/thanks",
  };
});
afterAll(async () => {
  await stack.close();
  await receiver.close();
});
beforeEach(async () => {
  stack.sandbox.faults.configure({});
  await stack.clearEvents();
});

const request = (billing: "token" | "recurring" = "token"): CheckoutRequest => ({
  customer: { name: "Window Customer", email: "window@example.com" },
  plan: { amount: "29.00", currency: "USD", interval_months: 1 },
  billing,
});

async function started(billing: "token" | "recurring" = "token"): Promise<Checkout> {
  const start = await startCheckout(request(billing), deps);
  if (start.kind !== "started") throw new Error(`checkout not started: ${JSON.stringify(start)}`);
  return start.checkout;
}

/** The customer pays in the window; the query the gateway then sent to our status_url. */
async function payInWindow(checkout: Checkout, cardNumber = VISA): Promise<string> {
  const sent = receiver.queries.length;
  const reply = await fetch(`${stack.sandbox.url}/sandbox/windows/${checkout.fgkey}/complete`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ card_number: cardNumber, expiry_date: "203012", cvc: "123" }),
  });
  expect(reply.status).toBe(200);
  await stack.sandbox.deliveries.settled();
  const query = receiver.queries[sent];
  if (query === undefined) throw new Error("status_url was not called");
  return query;
}

/** The checkout's dependencies with the gateway vouching for any query (forms the sandbox never sends). */
const vouchedDeps = (): CheckoutDeps => ({
  ...deps,
  gateway: createPaymentGateway(
    {
      ...stack.services.gatewayClient.payments,
      verify: async () => success({ rescode: "0000", resmsg: "Success" }),
    },
    {
      lang: "EN",
    },
  ),
});

/** Everything we store about one checkout. */
async function stored(subscriptionId: string) {
  const { repository } = stack.services;
  const subscription = await repository.getSubscription(subscriptionId);
  const token = subscription?.token_id ? await repository.getToken(subscription.token_id) : undefined;
  return { subscription, attempts: await repository.listAttempts(subscriptionId), token };
}

describe("window sign-up with a trial", () => {
  it("verifies the card by the smallest charge in the window, refunds it, and trials until the first period", async () => {
    const start = await startCheckout({ ...request(), plan: { ...request().plan, trial_days: 14 } }, deps);
    if (start.kind !== "started") throw new Error("checkout not started");
    const { checkout } = start;
    expect(stack.sandbox.state.windows.find(checkout.fgkey)?.request).toMatchObject({
      payment: { amount: "0.01" },
    });
    await completeCheckout(await payInWindow(checkout), deps);
    const { subscription, attempts } = await stored(checkout.subscription_id);
    const trialEnd = new Date(START.getTime() + 14 * 86_400_000).toISOString();
    expect(subscription).toMatchObject({
      status: "trialing",
      period: 1,
      trial_end: trialEnd,
      next_charge_at: trialEnd,
      plan: { amount: "29.00", currency: "USD", interval_months: 1 },
    });
    expect(attempts).toMatchObject([{ amount: "0.01", status: "succeeded", refunded_amount: "0.01" }]);
  });
});

describe("a new card in the payment window (startPaymentMethodWindow → status_url → completeCheckout)", () => {
  /** An active subscription, signed up in a window. */
  async function activeSubscription(billing: "token" | "recurring" = "token"): Promise<string> {
    const checkout = await started(billing);
    await completeCheckout(await payInWindow(checkout), deps);
    return checkout.subscription_id;
  }

  async function newCardWindow(subscriptionId: string) {
    const start = await startPaymentMethodWindow(
      { subscription_id: subscriptionId },
      { ...deps, policy: stack.services.policy },
    );
    if (start.kind !== "started") throw new Error(`window not started: ${JSON.stringify(start)}`);
    return start.window;
  }

  it("verifies the new card by the smallest charge, refunds it, and charges the new token from then on", async () => {
    const id = await activeSubscription();
    const before = await stored(id);
    const window = await newCardWindow(id);
    expect(stack.sandbox.state.windows.find(window.fgkey)?.request).toMatchObject({
      payment: { amount: "0.01" },
      tokenbilling: { token_creation: "Y" },
    });
    const query = await payInWindow({ ...window, checkout_id: id }, "5555555555554444");
    const completion = await completeCheckout(query, deps);
    expect(completion).toMatchObject({ kind: "paid", subscription: { card: { last4: "4444" } } });
    const after = await stored(id);
    expect(after.subscription?.token_id).not.toBe(before.subscription?.token_id);
    expect(after.attempts.find((line) => line.order_id === window.order_id)).toMatchObject({
      status: "succeeded",
      purpose: "payment_method",
      refunded_amount: "0.01",
    });
    expect(
      stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, before.subscription?.token_id ?? "")?.status,
    ).toBe("deleted");
    // The gateway calls status_url again: recorded already, nothing changes, nothing is asked.
    expect(await completeCheckout(query, deps)).toMatchObject({ kind: "recorded" });
    expect((await stored(id)).subscription?.token_id).toBe(after.subscription?.token_id);
  });

  it("replaces a gateway-managed plan: the new plan registered with the payment, the old one deleted first", async () => {
    const id = await activeSubscription("recurring");
    const before = await stored(id);
    const oldPlan = before.subscription?.recurring_id ?? "";
    const window = await newCardWindow(id);
    expect(stack.sandbox.state.windows.find(window.fgkey)?.request).toMatchObject({
      payment: { amount: "0.01" },
      recurring: { recurring_amount: "29.00" },
    });
    const completion = await completeCheckout(
      await payInWindow({ ...window, checkout_id: id }, "5555555555554444"),
      deps,
    );
    expect(completion).toMatchObject({ kind: "paid", subscription: { card: { last4: "4444" } } });
    const newPlan = (await stored(id)).subscription?.recurring_id ?? "";
    expect(newPlan).not.toBe(oldPlan);
    expect(stack.sandbox.state.recurring.find(TEST_MERCHANT.mid, oldPlan)?.status).not.toBe("active");
    expect(stack.sandbox.state.recurring.find(TEST_MERCHANT.mid, newPlan)?.status).toBe("active");
  });

  it("keeps the card when the window's payment is declined", async () => {
    const id = await activeSubscription();
    const before = await stored(id);
    const window = await newCardWindow(id);
    const completion = await completeCheckout(
      await payInWindow({ ...window, checkout_id: id }, INSUFFICIENT_FUNDS),
      deps,
    );
    expect(completion).toMatchObject({ kind: "refused" });
    expect((await stored(id)).subscription?.token_id).toBe(before.subscription?.token_id);
  });
});

describe("window sign-up (startCheckout → status_url → completeCheckout)", () => {
  it("starts a pending checkout whose fgkey opens a window that reports to our status_url", async () => {
    const checkout = await started();
    expect(checkout.checkout_id).toBe(checkout.subscription_id);
    expect(checkout.order_id).toBe(`${checkout.subscription_id}-0-0`);
    expect(checkout.fgkey).toMatch(/^[0-9A-F]{64}$/);
    const { subscription, attempts } = await stored(checkout.subscription_id);
    expect(subscription).toMatchObject({ status: "pending", period: 0, billing_mode: "token" });
    expect(attempts).toMatchObject([{ order_id: checkout.order_id, status: "pending", amount: "29.00" }]);
    const window = stack.sandbox.state.windows.find(checkout.fgkey);
    expect(window?.request).toMatchObject({
      payment: { transaction_type: "PAYMENT", order_id: checkout.order_id, amount: "29.00" },
      url: { status_url: `${receiver.url}/webhooks/status`, return_url: "https://merchant.example/thanks" },
      tokenbilling: { token_creation: "Y" },
    });
  });

  it("a paid window activates the subscription with its token; the charge is announced once", async () => {
    const checkout = await started();
    const query = await payInWindow(checkout);

    const completion = await completeCheckout(query, deps);

    expect(completion).toMatchObject({
      kind: "paid",
      subscription: {
        subscription_id: checkout.subscription_id,
        status: "active",
        period: 1,
        attempt: 0,
        card: { first4: "4111", last4: "1111" },
        next_charge_at: "2027-04-15T10:00:00.000Z",
      },
    });
    const { subscription, attempts, token } = await stored(checkout.subscription_id);
    expect(subscription?.token_id).toEqual(expect.any(String));
    expect(token).toMatchObject({ subscription_id: checkout.subscription_id, status: "active" });
    expect(token?.card).toEqual({ first4: "4111", last4: "1111" });
    const params = new URLSearchParams(query);
    expect(attempts).toMatchObject([
      { order_id: checkout.order_id, status: "succeeded", transaction_id: params.get("transaction_id") },
    ]);
    expect(attempts[0]?.lease_until).toBeUndefined();
    const events = await stack.events();
    expect(events).toHaveLength(3);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "subscription.created", subscription_id: checkout.subscription_id }),
        expect.objectContaining({ type: "charge.succeeded", order_id: checkout.order_id, amount: "29.00" }),
        expect.objectContaining({
          type: "subscription.activated",
          subscription_id: checkout.subscription_id,
        }),
      ]),
    );
  });

  it("completes on the real gateway's callback form: no status, ver=230, upper-case fgkey, blanks, trailing &", async () => {
    const checkout = await started();
    // The sandbox sends the real gateway's form.
    const query = `${await payInWindow(checkout)}&`;
    const fields = Object.fromEntries(new URLSearchParams(query));
    expect(fields).not.toHaveProperty("status");
    expect(fields).toMatchObject({
      ver: "230",
      dm_decision: "",
      fgkey: expect.stringMatching(/^[0-9A-F]{64}$/),
    });

    expect(await completeCheckout(query, deps)).toMatchObject({
      kind: "paid",
      subscription: { subscription_id: checkout.subscription_id, status: "active", period: 1 },
    });
    expect((await stored(checkout.subscription_id)).token).toMatchObject({ status: "active" });
  });

  it("reads a callback in the older short names, which the gateway verifies", async () => {
    const checkout = await started();
    const long = new URLSearchParams(await payInWindow(checkout));
    const SHORT: Readonly<Record<string, string>> = {
      transaction_type: "txntype",
      order_id: "ref",
      currency: "cur",
      amount: "amt",
      transaction_id: "transid",
      card_number1: "cardno1",
      card_number4: "cardno4",
    };
    const short: Record<string, string> = {};
    for (const [key, value] of long) if (key !== "fgkey") short[SHORT[key] ?? key] = value;
    const query = new URLSearchParams({
      ...short,
      fgkey: computeFgkey(TEST_MERCHANT.apiKey, short).toUpperCase(),
    }).toString();

    expect(await completeCheckout(query, deps)).toMatchObject({
      kind: "paid",
      subscription: { status: "active", card: { first4: "4111", last4: "1111" } },
    });
    const { attempts } = await stored(checkout.subscription_id);
    expect(attempts).toMatchObject([{ status: "succeeded", transaction_id: long.get("transaction_id") }]);
  });

  it("does not read a virtual account issued without a status as a sale: it waits for the deposit", async () => {
    const checkout = await started();
    const fields = new URLSearchParams(await payInWindow(checkout));
    fields.delete("status");
    fields.set("virtual_account_number", "99012345678901");
    const before = await stored(checkout.subscription_id);

    expect(await completeCheckout(fields.toString(), vouchedDeps())).toMatchObject({
      kind: "awaiting_deposit",
      subscription: { status: "pending" },
    });
    expect(await stored(checkout.subscription_id)).toEqual(before);
  });

  it("does not read an approved PAYER_AUTH result without a status as a sale", async () => {
    const checkout = await started();
    const fields = new URLSearchParams(await payInWindow(checkout));
    fields.delete("status");
    fields.set("transaction_type", "PAYER_AUTH");
    const before = await stored(checkout.subscription_id);

    expect(await completeCheckout(fields.toString(), vouchedDeps())).toEqual({
      kind: "rejected",
      reason: "unexpected window status (none, PAYER_AUTH)",
    });
    expect(await stored(checkout.subscription_id)).toEqual(before);
  });

  it("a repeated status_url call changes nothing and asks the gateway nothing", async () => {
    const checkout = await started();
    const query = await payInWindow(checkout);
    const first = await completeCheckout(query, deps);
    expect(first.kind).toBe("paid");
    const before = await stored(checkout.subscription_id);
    const events = (await stack.events()).length;
    const verifies = () => stack.sandbox.faults.counters().byRoute["payments.verify"]?.requests ?? 0;
    const verified = verifies();

    const again = await Promise.all([completeCheckout(query, deps), completeCheckout(query, deps)]);

    const recorded = { kind: "recorded", subscription: before.subscription };
    expect(again).toEqual([recorded, recorded]);
    expect(verifies()).toBe(verified);
    expect(await stored(checkout.subscription_id)).toEqual(before);
    expect(await stack.events()).toHaveLength(events);
  });

  it("refuses a query naming no window of ours before asking the gateway anything", async () => {
    const checkout = await started();
    const query = await payInWindow(checkout);
    const verifies = () => stack.sandbox.faults.counters().byRoute["payments.verify"]?.requests ?? 0;
    const verified = verifies();
    const forged = (orderId: string) => {
      const params = new URLSearchParams(query);
      params.set("order_id", orderId);
      return params.toString();
    };
    // An order that is not ours, a line that does not exist, and a renewal (no window).
    for (const orderId of [
      "not-ours",
      `${checkout.subscription_id}-0-7`,
      `${checkout.subscription_id}-1-0`,
    ]) {
      expect(await completeCheckout(forged(orderId), deps)).toMatchObject({ kind: "rejected" });
    }
    expect(await completeCheckout("not=a&window=result", deps)).toMatchObject({ kind: "rejected" });
    expect(verifies()).toBe(verified);
  });

  it("rejects a query with any parameter altered, added or removed, and changes nothing", async () => {
    const checkout = await started();
    const query = await payInWindow(checkout);
    const before = await stored(checkout.subscription_id);
    const tampered: string[] = [];
    for (const key of new URLSearchParams(query).keys()) {
      const altered = new URLSearchParams(query);
      altered.set(key, `${altered.get(key)}0`);
      const removed = new URLSearchParams(query);
      removed.delete(key);
      tampered.push(altered.toString(), removed.toString());
    }
    const added = new URLSearchParams(query);
    added.set("recurring_id", "RC0000000000000001");
    tampered.push(added.toString());

    for (const bad of tampered) {
      expect(await completeCheckout(bad, deps), bad).toMatchObject({ kind: "rejected" });
    }
    expect(await stored(checkout.subscription_id)).toEqual(before);
    expect(before.subscription?.status).toBe("pending");
    // Only the checkout's start is announced.
    expect((await stack.events()).map((event) => event.type)).toEqual(["subscription.created"]);
    // The untouched query still completes it: the rejections were the tampering's doing.
    expect(await completeCheckout(query, deps)).toMatchObject({ kind: "paid" });
  });

  it("a declined window closes the attempt declined and cancels the checkout, once", async () => {
    const checkout = await started();
    const query = await payInWindow(checkout, INSUFFICIENT_FUNDS);

    const completion = await completeCheckout(query, deps);

    expect(completion).toMatchObject({
      kind: "refused",
      code: "DC51",
      subscription: { status: "canceled", status_reason: "checkout_declined" },
    });
    const after = await stored(checkout.subscription_id);
    expect(after.attempts).toMatchObject([{ status: "declined", rescode: "DC51" }]);
    expect(after.subscription?.token_id).toBeUndefined();
    expect(await completeCheckout(query, deps)).toEqual({
      kind: "recorded",
      subscription: after.subscription,
    });
    expect(await stored(checkout.subscription_id)).toEqual(after);
    // Announced once: the refused charge with its ledger line, the cancel with the subscription.
    const events = await stack.events();
    expect(events.map((event) => event.type).sort()).toEqual([
      "charge.failed",
      "subscription.canceled",
      "subscription.created",
    ]);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "charge.failed", order_id: checkout.order_id, rescode: "DC51" }),
        expect.objectContaining({ type: "subscription.canceled", reason: "checkout_declined" }),
      ]),
    );
  });

  it("recurring billing registers the gateway plan: recurring_id kept, no next_charge_at", async () => {
    const checkout = await started("recurring");
    expect(stack.sandbox.state.windows.find(checkout.fgkey)?.request).toMatchObject({
      recurring: { recurring_amount: "29.00", recurring_start_date: "20270415", recurring_interval: "1" },
    });
    const query = await payInWindow(checkout);
    const recurringId = new URLSearchParams(query).get("recurring_id");
    expect(recurringId).toEqual(expect.any(String));

    const completion = await completeCheckout(query, deps);

    expect(completion).toMatchObject({
      kind: "paid",
      subscription: { status: "active", billing_mode: "recurring", period: 1, recurring_id: recurringId },
    });
    const { subscription, attempts } = await stored(checkout.subscription_id);
    expect(subscription?.next_charge_at).toBeUndefined();
    expect(subscription?.recurring_id).toBe(recurringId);
    expect(attempts).toMatchObject([{ status: "succeeded" }]);
  });

  it("verify unavailable: retry later, nothing changed", async () => {
    const checkout = await started();
    const query = await payInWindow(checkout);
    const before = await stored(checkout.subscription_id);
    stack.sandbox.faults.configure({ routes: { "payments.verify": { errorRate: 1 } } });

    expect(await completeCheckout(query, deps)).toMatchObject({ kind: "retry" });
    expect(await stored(checkout.subscription_id)).toEqual(before);

    stack.sandbox.faults.configure({});
    expect(await completeCheckout(query, deps)).toMatchObject({ kind: "paid" });
  });

  // Moves the shared clock on: the tests below it do not depend on the date.
  it("the stored token re-bills period 1 when the charge run finds it due", async () => {
    const checkout = await started();
    await completeCheckout(await payInWindow(checkout), deps);
    await stack.clock.set(new Date("2027-04-15T11:00:00.000Z"));

    await stack.chargeRun();
    await stack.drainChargeQueue();

    const { subscription, attempts } = await stored(checkout.subscription_id);
    expect(subscription).toMatchObject({ status: "active", period: 2 });
    expect(attempts.map((attempt) => [attempt.period, attempt.status])).toEqual([
      [0, "succeeded"],
      [1, "succeeded"],
    ]);
  });

  it("ready unavailable: the checkout is refused and canceled, nothing left open", async () => {
    stack.sandbox.faults.configure({ routes: { "payments.ready": { errorRate: 1 } } });

    const start = await startCheckout(request(), deps);

    expect(start).toMatchObject({ kind: "refused", failure: { kind: "unavailable" } });
    if (start.kind !== "refused") return;
    const { subscription, attempts } = await stored(start.subscription_id);
    expect(subscription).toMatchObject({ status: "canceled", status_reason: "checkout_unavailable" });
    expect(attempts).toMatchObject([{ status: "voided" }]);
  });
});
