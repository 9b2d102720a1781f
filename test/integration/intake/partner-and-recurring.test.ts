import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteBatch } from "../../../functions/adapters/sqs-poller";
import { type Checkout, type CheckoutDeps, startCheckout } from "../../../functions/core/checkout";
import { processIntakeMessage, STATUS_URL_GRACE_MS } from "../../../functions/core/intake";
import { type IntakeMessage, parseIntakeMessage } from "../../../functions/core/intake-messages";
import { functionNamed } from "../../../functions/function-table";
import { BillingStack } from "../../../local/billing-stack";
import { scheduledEvent, stubContext } from "../../../local/lambda-context";
import { receiveLambdaEvent } from "../../../local/sqs-lambda-event";
import { captureOutput, TestContainer } from "../../support/handler-env";
import { signUpCards } from "../../support/signups";
import {
  drainIntake,
  invokeRoute,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../support/webhook-receiver";

const processIntakeDefinition = functionNamed("process-intake");
const registerPartnerWebhookDefinition = functionNamed("register-partner-webhook");

const container = new TestContainer(() => stack);
const processIntake = container.handler(processIntakeDefinition);
const registerPartnerWebhook = container.handler(registerPartnerWebhookDefinition);

/*
 * Partner PAYMENT_COMPLETED events (unsigned: hints confirmed by retrieve) and gateway-managed recurring charges
 * (recurring_noti_url), from the sandbox through our receivers, the intake queue and process-intake.
 */

const VISA = "4111111111111111";
/** A status_url nobody answers: the window result never reaches us. */
const LOST_STATUS_URL_BASE = "http://127.0.0.1:9/webhooks";

let receiver: WebhookReceiver;
let stack: BillingStack;

beforeAll(async () => {
  receiver = await startWebhookReceiver(container);
  stack = await BillingStack.start({ webhookBaseUrl: receiver.webhookBaseUrl });
});
beforeEach(() => container.renew());
afterAll(async () => {
  await stack.close();
  await receiver.close();
});

const register = () => registerPartnerWebhook(scheduledEvent(), stubContext("register-partner-webhook"));
const partnerSubscriptions = async () => {
  const listed = await stack.services.gatewayClient.partner.listWebhooks();
  if (listed.kind !== "success") throw new Error("cannot list partner webhooks");
  return listed.value;
};

async function checkout(billing: "token" | "recurring", webhookBaseUrl: string): Promise<Checkout> {
  const deps: CheckoutDeps = {
    ...stack.services,
    statusUrl: `${webhookBaseUrl}/status`,
    defaultReturnUrl: "https://shop.example/back",
  };
  const start = await startCheckout(
    {
      customer: { name: "Partner Customer", email: "partner@example.com" },
      plan: { amount: "15.00", currency: "USD", interval_months: 1 },
      billing,
    },
    deps,
  );
  if (start.kind !== "started") throw new Error(`checkout not started: ${start.kind}`);
  return start.checkout;
}

async function payInWindow(started: Checkout): Promise<void> {
  const reply = await fetch(`${stack.sandbox.url}/sandbox/windows/${started.fgkey}/complete`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ card_number: VISA, expiry_date: "203012", cvc: "123" }),
  });
  expect(reply.status).toBe(200);
  await stack.sandbox.deliveries.settled();
}

const state = async (subscriptionId: string) => ({
  subscription: await stack.services.repository.getSubscription(subscriptionId),
  attempts: await stack.services.repository.listAttempts(subscriptionId),
});

/** process-intake's logic at a later time (after the status_url grace), on the stack's services. */
const processLater = (message: IntakeMessage) =>
  processIntakeMessage(message, 1, {
    ...stack.services,
    clock: { now: () => new Date(Date.now() + STATUS_URL_GRACE_MS + 60_000) },
  });

const partnerEvent = (orderId: string, transactionId: string) => ({
  method: "POST",
  url: "/webhooks/partner",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: `evt_${transactionId}`,
    eventType: "PAYMENT_COMPLETED",
    timestamp: new Date().toISOString(),
    data: {
      invoice: { invoiceId: "inv_1", invoiceNumber: orderId, status: "COMPLETED" },
      payment: { transactionId, amount: "15.00", currency: "USD", rescode: "0000", resmsg: "Success" },
    },
  }),
});

describe("register-partner-webhook", () => {
  it("creates the PAYMENT_COMPLETED subscription once, then finds it, and re-activates it when inactive", async () => {
    await stack.clock.set(new Date());
    const endpointUrl = `${receiver.webhookBaseUrl}/partner`;
    expect(await register()).toMatchObject({ kind: "created" });
    expect(await register()).toMatchObject({ kind: "present" });
    const [subscription] = await partnerSubscriptions();
    expect(subscription).toMatchObject({ endpointUrl, eventTypes: ["PAYMENT_COMPLETED"], isActive: true });
    await stack.services.gatewayClient.partner.updateWebhook(undefined, subscription?.id ?? "", {
      endpointUrl,
      eventTypes: ["PAYMENT_COMPLETED"],
      isActive: false,
    });
    expect(await register()).toEqual({ kind: "reactivated", id: subscription?.id });
    expect(await partnerSubscriptions()).toMatchObject([{ id: subscription?.id, isActive: true }]);
  });
});

describe("partner PAYMENT_COMPLETED hints", () => {
  it("completes a checkout whose status_url never arrived, after the grace and a retrieve that confirms the sale", async () => {
    const started = await checkout("token", LOST_STATUS_URL_BASE);
    await payInWindow(started);
    expect(stack.sandbox.deliveries.entries("status_url").at(-1)).toMatchObject({
      error: expect.any(String),
    });
    const event = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
    expect(event.Records).toHaveLength(1);
    const message = parseIntakeMessage(event.Records[0]?.body ?? "");
    expect(message).toMatchObject({
      kind: "partner",
      order_id: started.order_id,
      transaction_id: expect.any(String),
    });

    // Within the grace status_url may still come: the message goes back on the queue, nothing changes.
    const output = captureOutput();
    const response = await processIntake(event, stubContext("process-intake"));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]?.messageId }]);
    expect(output.metrics()).toMatchObject({ "Billing/IntakeMessagesRetried": 1 });
    expect((await state(started.subscription_id)).subscription?.status).toBe("pending");
    await deleteBatch(stack.sqs.client, stack.intakeQueue.queueUrl, event.Records);

    await stack.clearEvents();
    expect(await processLater(message)).toMatchObject({ outcome: "payment_confirmed" });
    const after = await state(started.subscription_id);
    expect(after.subscription).toMatchObject({ status: "active", period: 1 });
    expect(after.attempts).toMatchObject([
      { status: "succeeded", transaction_id: message.kind === "partner" ? message.transaction_id : "" },
    ]);
    expect((await stack.events()).map((published) => published.type).sort()).toEqual([
      "charge.succeeded",
      "subscription.activated",
    ]);

    // The same hint again: nothing changes, nothing is announced twice.
    expect(await processLater(message)).toMatchObject({ outcome: "payment_hint_ignored" });
    expect(await state(started.subscription_id)).toEqual(after);
    expect(await stack.events()).toHaveLength(2);
  });

  it("a hint for an unknown order or transaction changes nothing", async () => {
    for (const [orderId, transactionId] of [
      ["someone-elses-order", "SBXT00000000000000000999"],
      ["sub_unknown-0-0", "SBXT00000000000000000998"],
    ] as const) {
      expect((await invokeRoute(container, partnerEvent(orderId, transactionId))).statusCode).toBe(200);
    }
    const output = captureOutput();
    expect((await drainIntake(container)).flatMap((response) => response.batchItemFailures)).toEqual([]);
    expect(output.metrics()).toMatchObject({
      "Billing/PaymentHintsIgnored": 2,
      "Billing/PaymentHintsConfirmed": 0,
    });
  });

  it("a hint for a checkout that was never paid changes nothing, even after the grace", async () => {
    const started = await checkout("token", LOST_STATUS_URL_BASE);
    const before = await state(started.subscription_id);
    expect(
      (await invokeRoute(container, partnerEvent(started.order_id, "SBXT00000000000000000997"))).statusCode,
    ).toBe(200);
    const event = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
    const message = parseIntakeMessage(event.Records[0]?.body ?? "");
    await deleteBatch(stack.sqs.client, stack.intakeQueue.queueUrl, event.Records);
    expect(await processLater(message)).toMatchObject({
      outcome: "payment_hint_ignored",
      work: { note: expect.stringContaining("retrieve does not confirm") },
    });
    expect(await state(started.subscription_id)).toEqual(before);
  });

  it("a hint for a sale the billing core already recorded (server-to-server sign-up) changes nothing", async () => {
    const [id = ""] = await signUpCards(stack, ["5555555555554444"]);
    await stack.sandbox.deliveries.settled();
    const before = await state(id);
    const output = captureOutput();
    await drainIntake(container);
    expect(output.metrics()).toMatchObject({ "Billing/PaymentHintsIgnored": 1 });
    expect(await state(id)).toEqual(before);
  });

  it("refuses a body that is no partner event and acknowledges other event types without queuing", async () => {
    const bad = await invokeRoute(container, {
      method: "POST",
      url: "/webhooks/partner",
      headers: {},
      body: "not json",
    });
    expect(bad.statusCode).toBe(400);
    const other = await invokeRoute(container, {
      method: "POST",
      url: "/webhooks/partner",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ eventType: "INVOICE_CREATED", timestamp: new Date().toISOString(), data: {} }),
    });
    expect(other.statusCode).toBe(200);
    expect(await drainIntake(container)).toEqual([]);
  });
});

describe("recurring_noti_url", () => {
  it("records each gateway-run charge once, confirmed by retrieve", async () => {
    const started = await checkout("recurring", receiver.webhookBaseUrl);
    await payInWindow(started);
    await drainIntake(container); // status_url (and the partner hint it races with)
    expect((await state(started.subscription_id)).subscription).toMatchObject({
      status: "active",
      period: 1,
      recurring_id: expect.any(String),
    });

    receiver.reset();
    await stack.clock.advance("P32D"); // the gateway charges the plan and calls recurring_noti_url
    await stack.sandbox.deliveries.settled();
    const notice = receiver.requests.find((request) => request.url.startsWith("/webhooks/recurring?"));
    if (!notice) throw new Error("recurring_noti_url was not called");
    const token = (await state(started.subscription_id)).subscription?.notify_token;
    expect(token).toMatch(/^[0-9a-z]{32}$/);
    expect(notice.url).toBe(`/webhooks/recurring?subscription_id=${started.subscription_id}&token=${token}`);
    const output = captureOutput();
    await drainIntake(container);
    expect(output.metrics()).toMatchObject({ "Billing/RecurringChargesRecorded": 1 });
    const after = await state(started.subscription_id);
    expect(after.subscription?.period).toBe(2);
    expect(after.attempts.map((attempt) => attempt.status)).toEqual(["succeeded", "succeeded"]);

    // The notice again: recorded once.
    expect((await invokeRoute(container, notice)).statusCode).toBe(200);
    await drainIntake(container);
    expect(await state(started.subscription_id)).toEqual(after);
  });

  it("refuses a notice without its plan's secret before anything is queued or asked: 404", async () => {
    const started = await checkout("recurring", receiver.webhookBaseUrl);
    await payInWindow(started);
    await drainIntake(container);
    const before = await state(started.subscription_id);
    const asked = () => stack.sandbox.faults.counters().byRoute["payments.retrieve"]?.requests ?? 0;
    const retrievesBefore = asked();
    const id = started.subscription_id;
    for (const query of [
      `subscription_id=${id}`,
      `subscription_id=${id}&token=wrong`,
      "subscription_id=sub_none&token=x",
    ]) {
      const reply = await invokeRoute(container, {
        method: "POST",
        url: `/webhooks/recurring?${query}`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ order_id: "forged-order-1" }),
      });
      expect(reply.statusCode, query).toBe(404);
    }
    await drainIntake(container);
    expect(await state(id)).toEqual(before);
    expect(asked()).toBe(retrievesBefore);
  });

  it("credits no period for an order retrieve does not show as this plan's sale, nor a transaction credited before", async () => {
    const [first, second] = [
      await checkout("recurring", receiver.webhookBaseUrl),
      await checkout("recurring", receiver.webhookBaseUrl),
    ];
    for (const started of [first, second]) await payInWindow(started);
    await drainIntake(container);
    receiver.reset();
    await stack.clock.advance("P32D");
    await stack.sandbox.deliveries.settled();
    const noticeOf = (id: string) =>
      receiver.requests.find((request) => request.url.includes(`subscription_id=${id}&`));
    const [firstNotice, secondNotice] = [noticeOf(first.subscription_id), noticeOf(second.subscription_id)];
    if (!firstNotice || !secondNotice) throw new Error("recurring_noti_url was not called");
    await invokeRoute(container, firstNotice);
    await drainIntake(container);
    const before = await state(second.subscription_id);

    // The second plan's own URL (its own charge credited already), naming the first plan's paid order, an order the
    // gateway never saw, and an order of ours it never sold.
    for (const order_id of [
      JSON.parse(firstNotice.body).order_id,
      "never-sold-1",
      `${first.subscription_id}-0-9`,
    ]) {
      const reply = await invokeRoute(container, { ...secondNotice, body: JSON.stringify({ order_id }) });
      expect(reply.statusCode).toBe(200);
    }
    const output = captureOutput();
    await drainIntake(container);
    expect(output.metrics()).toMatchObject({ "Billing/RecurringNoticesIgnored": 3 });
    expect(await state(second.subscription_id)).toEqual(before);
    expect(before.subscription).toMatchObject({ status: "active", period: 2 });
  });

  it("refuses a notice without subscription_id or order_id", async () => {
    const reply = await invokeRoute(container, {
      method: "POST",
      url: "/webhooks/recurring",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ order_id: "R1-1" }),
    });
    expect(reply.statusCode).toBe(400);
  });
});
