import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteBatch } from "../../../functions/adapters/sqs-poller";
import { type Checkout, type CheckoutDeps, startCheckout } from "../../../functions/core/checkout";
import { BillingStack } from "../../../local/billing-stack";
import { approximateMessageCount, drainQueue } from "../../../local/sqs-emulator";
import { captureOutput, TestContainer } from "../../support/handler-env";
import {
  drainIntake,
  invokeRoute,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../support/webhook-receiver";

const container = new TestContainer(() => stack);

/*
 * status_url end to end: the sandbox completes a payment window and calls our status_url; API Gateway's v2 event
 * reaches receive-status-callback, which queues the query untouched; process-intake (SQS event from local-aws-sqs)
 * verifies it with the gateway before anything changes. Handlers run as Lambda runs them, built from the
 * environment of the local stack.
 */

const VISA = "4111111111111111";

let receiver: WebhookReceiver;
let stack: BillingStack;
let deps: CheckoutDeps;

beforeAll(async () => {
  receiver = await startWebhookReceiver(container);
  stack = await BillingStack.start({ webhookBaseUrl: receiver.webhookBaseUrl });
  deps = {
    ...stack.services,
    statusUrl: `${receiver.webhookBaseUrl}/status`,
    defaultReturnUrl: "https://shop.example/back",
  };
});
beforeEach(() => {
  container.renew();
  receiver.reset();
});
afterAll(async () => {
  await stack.close();
  await receiver.close();
});

async function started(): Promise<Checkout> {
  const start = await startCheckout(
    {
      customer: { name: "Window Customer", email: "window@example.com" },
      plan: { amount: "29.00", currency: "USD", interval_months: 1 },
      billing: "token",
    },
    deps,
  );
  if (start.kind !== "started") throw new Error(`checkout not started: ${start.kind}`);
  return start.checkout;
}

/** The customer pays in the window; returns the status_url request the sandbox sent us. */
async function payInWindow(checkout: Checkout) {
  const reply = await fetch(`${stack.sandbox.url}/sandbox/windows/${checkout.fgkey}/complete`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ card_number: VISA, expiry_date: "203012", cvc: "123" }),
  });
  expect(reply.status).toBe(200);
  await stack.sandbox.deliveries.settled();
  const request = receiver.requests.find((recorded) => recorded.url.startsWith("/webhooks/status?"));
  if (!request) throw new Error("status_url was not called");
  return request;
}

const stored = async (checkout: Checkout) => ({
  subscription: await stack.services.repository.getSubscription(checkout.subscription_id),
  attempts: await stack.services.repository.listAttempts(checkout.subscription_id),
});

const intakeDepth = () => approximateMessageCount(stack.sqs.client, stack.intakeQueue.queueUrl);

/** Drops what is queued without processing it (the genuine callback, held back while forgeries are tried). */
async function discardIntake(): Promise<void> {
  const { client } = stack.sqs;
  const { queueUrl } = stack.intakeQueue;
  await deleteBatch(client, queueUrl, await drainQueue(client, queueUrl));
}

describe("status_url intake (receive-status-callback → SQS → process-intake)", () => {
  it("acknowledges at once, queues the query untouched and activates the checkout only after verify", async () => {
    const checkout = await started();
    const request = await payInWindow(checkout);
    expect(request.method).toBe("GET");
    const query = request.url.slice("/webhooks/status?".length);
    // The window result carries masked card fields only.
    const params = new URLSearchParams(query);
    expect(params.get("card_number1")).toBe("4111");
    expect(query).not.toContain(VISA);

    // The sandbox saw our acknowledgement; nothing changed yet: the message waits on the queue.
    const [delivery] = stack.sandbox.deliveries.entries("status_url").slice(-1);
    expect(delivery).toMatchObject({ status: 200, rescode: "0000" });
    expect((await stored(checkout)).subscription?.status).toBe("pending");
    expect(await intakeDepth()).toBe(1);

    const output = captureOutput();
    expect(await drainIntake(container)).toEqual([{ batchItemFailures: [] }]);
    const { subscription, attempts } = await stored(checkout);
    expect(subscription).toMatchObject({
      status: "active",
      period: 1,
      card: { first4: "4111", last4: "1111" },
    });
    expect(attempts).toMatchObject([{ status: "succeeded", transaction_id: params.get("transaction_id") }]);
    expect((await stack.deliveredEntries()).map((entry) => entry.DetailType).sort()).toEqual([
      "charge.succeeded",
      "subscription.activated",
      "subscription.created",
    ]);
    expect(output.metrics()).toMatchObject({
      "Billing/CheckoutsCompleted": 1,
      "Billing/StatusCallbacksRejected": 0,
    });

    // status_url "may be called more than once": the repeat is queued and changes nothing.
    const again = await invokeRoute(container, request);
    expect(again.statusCode).toBe(200);
    expect(await drainIntake(container)).toEqual([{ batchItemFailures: [] }]);
    expect(await stored(checkout)).toEqual({ subscription, attempts });
    expect(await stack.deliveredEntries()).toHaveLength(3);
  });

  it("a query with any parameter altered is rejected by verify and changes nothing", async () => {
    const checkout = await started();
    const request = await payInWindow(checkout);
    await discardIntake();
    const genuine = new URLSearchParams(request.url.slice("/webhooks/status?".length));
    const before = await stored(checkout);
    const published = (await stack.deliveredEntries()).length;

    const names = [...genuine.keys()];
    expect(names).toEqual(
      expect.arrayContaining(["order_id", "amount", "rescode", "ver", "fgkey", "token_id"]),
    );
    const tampered = names.map((name) => {
      const params = new URLSearchParams(genuine);
      // A letter, not a digit: a digit appended to a timestamp could make a card-number-shaped run, which the
      // receiver refuses before verify is asked.
      params.set(name, name === "rescode" ? "0001" : `${genuine.get(name)}X`);
      return params.toString();
    });
    const withoutFgkey = new URLSearchParams(genuine);
    withoutFgkey.delete("fgkey");
    const withExtra = new URLSearchParams(genuine);
    withExtra.set("param3", "added");
    for (const query of [...tampered, withoutFgkey.toString(), withExtra.toString()]) {
      const reply = await invokeRoute(container, {
        method: "GET",
        url: `/webhooks/status?${query}`,
        headers: {},
        body: "",
      });
      expect(reply.statusCode).toBe(200);
    }
    const output = captureOutput();
    const responses = await drainIntake(container);
    expect(responses.flatMap((response) => response.batchItemFailures)).toEqual([]);
    expect(output.metrics()).toMatchObject({ "Billing/CheckoutsCompleted": 0 });
    const rejected = output
      .logs()
      .filter((line) => JSON.stringify(line).includes('"outcome":"status_rejected"'));
    expect(rejected).toHaveLength(names.length + 2);
    expect(await stored(checkout)).toEqual(before);
    expect(await stack.deliveredEntries()).toHaveLength(published);

    // The genuine query, sent as a POST form this time, still completes the checkout.
    const form = await invokeRoute(container, {
      method: "POST",
      url: "/webhooks/status",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: genuine.toString(),
    });
    expect(form.statusCode).toBe(200);
    await drainIntake(container);
    expect((await stored(checkout)).subscription?.status).toBe("active");
  });

  it("takes the query from a JSON body too", async () => {
    const checkout = await started();
    const request = await payInWindow(checkout);
    // The GET the sandbox sent is lost: the same result comes again as a JSON body.
    await discardIntake();
    const params = Object.fromEntries(new URLSearchParams(request.url.slice("/webhooks/status?".length)));
    const reply = await invokeRoute(container, {
      method: "POST",
      url: "/webhooks/status",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    });
    expect(reply.statusCode).toBe(200);
    const output = captureOutput();
    await drainIntake(container);
    // Re-encoded in the same order: verify accepts it, and the checkout completes.
    expect(output.metrics()).toMatchObject({
      "Billing/CheckoutsCompleted": 1,
      "Billing/StatusCallbacksRejected": 0,
    });
  });

  it("refuses to queue a query that carries a card number or a CVC, or is empty", async () => {
    const output = captureOutput();
    for (const query of [`card_number=${VISA}&order_id=x`, "order_id=x&cvc=123", ""]) {
      const reply = await invokeRoute(container, {
        method: "GET",
        url: `/webhooks/status?${query}`,
        headers: {},
        body: "",
      });
      expect(reply.statusCode).toBe(400);
      expect(reply.body).not.toContain(VISA);
    }
    expect(await intakeDepth()).toBe(0);
    expect(output.metrics()).toMatchObject({ "Billing/StatusCallbacksRefused": 1 });
    expect(output.text()).not.toContain(VISA);
  });
});
