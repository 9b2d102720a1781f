import { beforeEach, describe, expect, it } from "vitest";
import { paymentMethodWindowView, subscriptionListView } from "../../../functions/api/merchant-api-views";
import { computeFgkey } from "../../../functions/gateway/fgkey";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { captureOutput } from "../../support/handler-env";
import { errorOf } from "../../support/merchant-api";
import { statusResultOf } from "../../support/payment-sandbox";
import { drainIntake, invokeRoute } from "../../support/webhook-receiver";
import {
  discardIntake,
  intakeOutcomes,
  processIntakeOnce,
  redeliver,
  stackWithWebhooks,
  statusCallbackOf,
} from "../../support/webhook-stack";

/*
 * The window sign-up (README, Merchant API: POST /v1/checkouts) against dynalite and the stateful sandbox, through
 * the handlers as deployed: create-checkout (ready) → the customer completes the window (sandbox route) → the
 * sandbox calls our status_url (receive-status-callback queues it) → process-intake verifies the query with the
 * gateway before anything changes. A new card's window (POST /v1/subscriptions/{id}/payment-method) completes the
 * same way. Window results the sandbox never sends are read in test/unit/core/lifecycle/checkout.test.ts; the intake's own
 * guarantees (a callback repeated or tampered with) in test/integration/handlers/receive-status-callback.test.ts.
 */

const START = new Date("2027-03-15T10:00:00.000Z");
const MASTERCARD = "5555555555554444";
const INSUFFICIENT_FUNDS = "4000000000009995";

const { stack, receiver, container, call, checkout, payInWindow, statusCallback } = stackWithWebhooks({
  start: START,
});

beforeEach(async () => {
  stack().sandbox.faults.configure({});
  await stack().clearEvents();
});

/** process-intake takes everything queued; what it made of each message. */
async function processCallbacks(): Promise<string[]> {
  const output = captureOutput();
  await drainIntake(container);
  return intakeOutcomes(output).map(({ outcome }) => outcome);
}

/** Everything we store about one subscription. */
async function stored(subscriptionId: string) {
  const { repository } = stack().services;
  const subscription = await repository.getSubscription(subscriptionId);
  const token = subscription?.token_id ? await repository.getToken(subscription.token_id) : undefined;
  return { subscription, attempts: await repository.listAttempts(subscriptionId), token };
}

const windowRequest = (fgkey: string) => stack().sandbox.state.windows.find(fgkey)?.request;
const verifies = () => stack().sandbox.faults.counters().byRoute["payments.verify"]?.requests ?? 0;

describe("window sign-up with a trial", () => {
  it("verifies the card by the smallest charge in the window, refunds it, and trials until the first period", async () => {
    const started = await checkout({
      plan: { amount: "29.00", currency: "USD", interval_months: 1, trial_days: 14 },
    });
    expect(windowRequest(started.fgkey)).toMatchObject({ payment: { amount: "0.01" } });
    // The real SDK's contract: request_pay is the fgkey plus exactly the ready request the gateway recorded for it.
    expect(started.request_pay).toEqual({
      ...(windowRequest(started.fgkey) as object),
      fgkey: started.fgkey,
    });
    expect(started.sdk_url).toBe(`${stack().sandbox.url}/v1/javascriptSDK.js`);
    await payInWindow(started.fgkey);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    const { subscription, attempts } = await stored(started.subscription_id);
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

describe("a new card in the payment window (POST …/payment-method → status_url → process-intake)", () => {
  /** An active subscription, signed up in a window. */
  async function activeSubscription(billing: "token" | "recurring" = "token"): Promise<string> {
    const started = await checkout({ billing });
    await payInWindow(started.fgkey);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    return started.subscription_id;
  }

  async function newCardWindow(subscriptionId: string) {
    const answer = await call("POST", `/v1/subscriptions/${subscriptionId}/payment-method`, {
      body: { window: {} },
    });
    expect(answer.status, answer.text).toBe(201);
    return paymentMethodWindowView.parse(answer.json);
  }

  it("verifies the new card by the smallest charge, refunds it, and charges the new token from then on", async () => {
    const id = await activeSubscription();
    const before = await stored(id);
    const window = await newCardWindow(id);
    expect(windowRequest(window.fgkey)).toMatchObject({
      payment: { amount: "0.01" },
      tokenbilling: { token_creation: "Y" },
    });
    await payInWindow(window.fgkey, MASTERCARD);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    const after = await stored(id);
    expect(after.subscription?.card).toEqual({ first4: "5555", last4: "4444" });
    expect(after.subscription?.token_id).not.toBe(before.subscription?.token_id);
    expect(after.attempts.find((line) => line.order_id === window.order_id)).toMatchObject({
      status: "succeeded",
      purpose: "payment_method",
      refunded_amount: "0.01",
    });
    expect(
      stack().sandbox.state.tokens.find(TEST_MERCHANT.mid, before.subscription?.token_id ?? "")?.status,
    ).toBe("deleted");

    // The gateway calls status_url again: recorded already, nothing changes, nothing is asked.
    const verified = verifies();
    await invokeRoute(container, statusCallback());
    expect(await processCallbacks()).toEqual(["status_duplicate"]);
    expect(verifies()).toBe(verified);
    expect(await stored(id)).toEqual(after);
  });

  it("replaces a gateway-managed plan: the new plan registered with the payment, the old one deleted first", async () => {
    const id = await activeSubscription("recurring");
    const oldPlan = (await stored(id)).subscription?.recurring_id ?? "";
    const window = await newCardWindow(id);
    expect(windowRequest(window.fgkey)).toMatchObject({
      payment: { amount: "0.01" },
      recurring: { recurring_amount: "29.00" },
    });
    await payInWindow(window.fgkey, MASTERCARD);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    const { subscription } = await stored(id);
    expect(subscription?.card).toEqual({ first4: "5555", last4: "4444" });
    const newPlan = subscription?.recurring_id ?? "";
    expect(newPlan).not.toBe(oldPlan);
    expect(stack().sandbox.state.recurring.find(TEST_MERCHANT.mid, oldPlan)?.status).not.toBe("active");
    expect(stack().sandbox.state.recurring.find(TEST_MERCHANT.mid, newPlan)?.status).toBe("active");
  });

  it("keeps the card when the window's payment is declined", async () => {
    const id = await activeSubscription();
    const before = await stored(id);
    const window = await newCardWindow(id);
    await payInWindow(window.fgkey, INSUFFICIENT_FUNDS);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    const after = await stored(id);
    expect(after.attempts.find((line) => line.order_id === window.order_id)).toMatchObject({
      status: "declined",
      rescode: "DC51",
    });
    expect(after.subscription).toMatchObject({ status: "active", card: before.subscription?.card });
    expect(after.subscription?.token_id).toBe(before.subscription?.token_id);
  });
});

describe("window sign-up (POST /v1/checkouts → status_url → process-intake)", () => {
  it("starts a pending checkout whose fgkey opens a window that reports to our status_url", async () => {
    const started = await checkout({ return_url: "https://merchant.example/thanks" });
    expect(started.checkout_id).toBe(started.subscription_id);
    expect(started.order_id).toBe(`${started.subscription_id}-0-0`);
    expect(started.fgkey).toMatch(/^[0-9A-F]{64}$/);
    const { subscription, attempts } = await stored(started.subscription_id);
    expect(subscription).toMatchObject({ status: "pending", period: 0, billing_mode: "token" });
    expect(attempts).toMatchObject([{ order_id: started.order_id, status: "pending", amount: "29.00" }]);
    expect(windowRequest(started.fgkey)).toMatchObject({
      payment: { transaction_type: "PAYMENT", order_id: started.order_id, amount: "29.00" },
      url: {
        status_url: `${receiver().webhookBaseUrl}/status`,
        return_url: "https://merchant.example/thanks",
      },
      tokenbilling: { token_creation: "Y" },
    });
  });

  it("a paid window activates the subscription with its token; the charge is announced once", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);

    expect(await processCallbacks()).toEqual(["checkout_completed"]);

    const { subscription, attempts, token } = await stored(started.subscription_id);
    expect(subscription).toMatchObject({
      subscription_id: started.subscription_id,
      status: "active",
      period: 1,
      attempt: 0,
      card: { first4: "4111", last4: "1111" },
      next_charge_at: "2027-04-15T10:00:00.000Z",
      token_id: expect.any(String),
    });
    expect(token).toMatchObject({ subscription_id: started.subscription_id, status: "active" });
    expect(token?.card).toEqual({ first4: "4111", last4: "1111" });
    const params = new URLSearchParams(statusResultOf(statusCallback()));
    expect(attempts).toMatchObject([
      { order_id: started.order_id, status: "succeeded", transaction_id: params.get("transaction_id") },
    ]);
    expect(attempts[0]?.lease_until).toBeUndefined();
    const events = await stack().events();
    expect(events).toHaveLength(4);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "subscription.created", subscription_id: started.subscription_id }),
        expect.objectContaining({ type: "charge.succeeded", order_id: started.order_id, amount: "29.00" }),
        expect.objectContaining({ type: "invoice.finalized", order_id: started.order_id, total: "29.00" }),
        expect.objectContaining({ type: "subscription.activated", subscription_id: started.subscription_id }),
      ]),
    );
  });

  it("completes on the real gateway's callback form: no status, ver=230, upper-case fgkey, blanks, trailing &", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);
    // The sandbox sends the real gateway's form; we send it again with a trailing & in place of its own call.
    await discardIntake(stack());
    const query = `${statusResultOf(statusCallback())}&`;
    const fields = Object.fromEntries(new URLSearchParams(query));
    expect(fields).not.toHaveProperty("status");
    expect(fields).toMatchObject({
      ver: "230",
      dm_decision: "",
      fgkey: expect.stringMatching(/^[0-9A-F]{64}$/),
    });

    await invokeRoute(container, statusCallbackOf(query));
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    const { subscription, token } = await stored(started.subscription_id);
    expect(subscription).toMatchObject({ status: "active", period: 1 });
    expect(token).toMatchObject({ status: "active" });
  });

  it("reads a callback in the older short names, which the gateway verifies", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);
    await discardIntake(stack());
    const long = new URLSearchParams(statusResultOf(statusCallback()));
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

    await invokeRoute(container, statusCallbackOf(query));
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    const { subscription, attempts } = await stored(started.subscription_id);
    expect(subscription).toMatchObject({ status: "active", card: { first4: "4111", last4: "1111" } });
    expect(attempts).toMatchObject([{ status: "succeeded", transaction_id: long.get("transaction_id") }]);
  });

  it("refuses a query naming no window of ours before asking the gateway anything", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);
    await discardIntake(stack());
    const query = statusResultOf(statusCallback());
    const verified = verifies();
    const forged = (orderId: string) => {
      const params = new URLSearchParams(query);
      params.set("order_id", orderId);
      return params.toString();
    };
    // An order that is not ours, a line that does not exist, a renewal (no window), and no window result at all.
    for (const forgery of [
      forged("not-ours"),
      forged(`${started.subscription_id}-0-7`),
      forged(`${started.subscription_id}-1-0`),
      "not=a&window=result",
    ]) {
      await invokeRoute(container, statusCallbackOf(forgery));
    }
    expect(await processCallbacks()).toEqual(Array.from({ length: 4 }, () => "status_rejected"));
    expect(verifies()).toBe(verified);
    expect((await stored(started.subscription_id)).subscription?.status).toBe("pending");
  });

  it("a declined window closes the attempt declined and cancels the checkout, once", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey, INSUFFICIENT_FUNDS);

    expect(await processCallbacks()).toEqual(["checkout_completed"]);

    const after = await stored(started.subscription_id);
    expect(after.subscription).toMatchObject({ status: "canceled", status_reason: "checkout_declined" });
    expect(after.attempts).toMatchObject([{ status: "declined", rescode: "DC51" }]);
    expect(after.subscription?.token_id).toBeUndefined();
    await invokeRoute(container, statusCallback());
    expect(await processCallbacks()).toEqual(["status_duplicate"]);
    expect(await stored(started.subscription_id)).toEqual(after);
    // Announced once: the refused charge with its ledger line, the cancel with the subscription.
    const events = await stack().events();
    expect(events.map((event) => event.type).sort()).toEqual([
      "charge.failed",
      "subscription.canceled",
      "subscription.created",
    ]);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "charge.failed", order_id: started.order_id, rescode: "DC51" }),
        expect.objectContaining({ type: "subscription.canceled", reason: "checkout_declined" }),
      ]),
    );
  });

  it("recurring billing registers the gateway plan: recurring_id kept, no next_charge_at", async () => {
    const started = await checkout({ billing: "recurring" });
    expect(windowRequest(started.fgkey)).toMatchObject({
      recurring: { recurring_amount: "29.00", recurring_start_date: "20270415", recurring_interval: "1" },
    });
    await payInWindow(started.fgkey);
    const recurringId = new URLSearchParams(statusResultOf(statusCallback())).get("recurring_id");
    expect(recurringId).toEqual(expect.any(String));

    expect(await processCallbacks()).toEqual(["checkout_completed"]);

    const { subscription, attempts } = await stored(started.subscription_id);
    expect(subscription).toMatchObject({
      status: "active",
      billing_mode: "recurring",
      period: 1,
      recurring_id: recurringId,
    });
    expect(subscription?.next_charge_at).toBeUndefined();
    expect(attempts).toMatchObject([{ status: "succeeded" }]);
  });

  it("verify unavailable: retry later, nothing changed", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);
    const before = await stored(started.subscription_id);
    stack().sandbox.faults.configure({ routes: { "payments.verify": { errorRate: 1 } } });

    const { retried } = await processIntakeOnce(container);
    expect(retried).toHaveLength(1);
    expect(await stored(started.subscription_id)).toEqual(before);

    stack().sandbox.faults.configure({});
    await redeliver(stack(), retried);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    expect((await stored(started.subscription_id)).subscription?.status).toBe("active");
  });

  // Moves the shared clock on: the tests below it do not depend on the date.
  it("the stored token re-bills period 1 when the charge run finds it due", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);
    expect(await processCallbacks()).toEqual(["checkout_completed"]);
    await stack().clock.set(new Date("2027-04-15T11:00:00.000Z"));

    await stack().chargeRun();
    await stack().drainChargeQueue();

    const { subscription, attempts } = await stored(started.subscription_id);
    expect(subscription).toMatchObject({ status: "active", period: 2 });
    expect(attempts.map((attempt) => [attempt.period, attempt.status])).toEqual([
      [0, "succeeded"],
      [1, "succeeded"],
    ]);
  });

  it("ready unavailable: the checkout is refused and canceled, nothing left open", async () => {
    stack().sandbox.faults.configure({ routes: { "payments.ready": { errorRate: 1 } } });

    const answer = await call("POST", "/v1/checkouts", {
      body: {
        customer: { name: "Window Customer", email: "window@example.com", external_id: "ready_down" },
        plan: { amount: "29.00", currency: "USD", interval_months: 1 },
        billing: "token",
      },
    });

    expect(answer.status).toBe(503);
    expect(errorOf(answer).code).toBe("gateway_unavailable");
    const listed = subscriptionListView.parse(
      (await call("GET", "/v1/subscriptions?external_id=ready_down")).json,
    );
    expect(listed.data).toMatchObject([{ status: "canceled", status_reason: "checkout_unavailable" }]);
    const { attempts } = await stored(listed.data[0]?.subscription_id ?? "");
    expect(attempts).toMatchObject([{ status: "voided" }]);
  });
});
