import { describe, expect, it } from "vitest";
import { z } from "zod";
import { STATUS_URL_GRACE_MS } from "../../../functions/core/intake/intake";
import { parseIntakeMessage } from "../../../functions/core/ports/intake-messages";
import { functionNamed } from "../../../functions/function-table";
import { scheduledEvent, stubContext } from "../../../local/lambda/lambda-context";
import { captureOutput } from "../../support/handler-env";
import { sandboxGatewayClient } from "../../support/sandbox-gateway";
import { drainIntake, invokeRoute } from "../../support/webhook-receiver";
import { intakeOutcomes, processIntakeOnce, redeliver, stackWithWebhooks } from "../../support/webhook-stack";

/*
 * Partner PAYMENT_COMPLETED events (unsigned: hints confirmed by retrieve) and gateway-managed recurring charges
 * (recurring_noti_url), from the sandbox through our receivers, the intake queue and process-intake. Checkouts and
 * sign-ups go through the merchant API.
 */

/** A status_url nobody answers: the window result never reaches us. */
const LOST_STATUS_URL_BASE = "http://127.0.0.1:9/webhooks";

const { stack, receiver, container, renew, call, checkout, payInWindow } = stackWithWebhooks();
const registerPartnerWebhook = container.handler(functionNamed("register-partner-webhook"));

const register = () => registerPartnerWebhook(scheduledEvent(), stubContext("register-partner-webhook"));
const partnerSubscriptions = async () => {
  const listed = await sandboxGatewayClient(stack().sandbox).partner.listWebhooks();
  if (listed.kind !== "success") throw new Error("cannot list partner webhooks");
  return listed.value;
};

/** A checkout through a deployment whose status_url nobody answers: the window result never reaches us. */
async function checkoutWithLostStatusUrl() {
  renew({ PUBLIC_WEBHOOK_BASE_URL: LOST_STATUS_URL_BASE });
  try {
    return await checkout();
  } finally {
    renew();
  }
}

/** The stack's clock past the status_url grace of a hint received now. */
const pastTheGrace = () =>
  stack().clock.set(new Date(stack().clock.now().getTime() + STATUS_URL_GRACE_MS + 60_000));

/** process-intake takes everything queued; what it made of each message. */
async function processQueued() {
  const output = captureOutput();
  await drainIntake(container);
  return intakeOutcomes(output);
}

const state = async (subscriptionId: string) => ({
  subscription: await stack().services.repository.getSubscription(subscriptionId),
  attempts: await stack().services.repository.listAttempts(subscriptionId),
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
      payment: { transactionId, amount: "29.00", currency: "USD", rescode: "0000", resmsg: "Success" },
    },
  }),
});

describe("register-partner-webhook", () => {
  it("creates the PAYMENT_COMPLETED subscription once, then finds it, and re-activates it when inactive", async () => {
    await stack().clock.set(new Date());
    const endpointUrl = `${receiver().webhookBaseUrl}/partner`;
    expect(await register()).toMatchObject({ kind: "created" });
    expect(await register()).toMatchObject({ kind: "present" });
    const [subscription] = await partnerSubscriptions();
    expect(subscription).toMatchObject({ endpointUrl, eventTypes: ["PAYMENT_COMPLETED"], isActive: true });
    await sandboxGatewayClient(stack().sandbox).partner.updateWebhook(undefined, subscription?.id ?? "", {
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
    const started = await checkoutWithLostStatusUrl();
    await payInWindow(started.fgkey);
    expect(stack().sandbox.deliveries.entries("status_url").at(-1)).toMatchObject({
      error: expect.any(String),
    });

    // Within the grace status_url may still come: the message goes back on the queue, nothing changes.
    const output = captureOutput();
    const { event, retried } = await processIntakeOnce(container);
    expect(event.Records).toHaveLength(1);
    const message = parseIntakeMessage(event.Records[0]?.body ?? "");
    expect(message).toMatchObject({
      kind: "partner",
      order_id: started.order_id,
      transaction_id: expect.any(String),
    });
    expect(retried).toEqual(event.Records);
    expect(output.metrics()).toMatchObject({ "Billing/IntakeMessagesRetried": 1 });
    expect((await state(started.subscription_id)).subscription?.status).toBe("pending");

    await stack().clearEvents();
    await pastTheGrace();
    await redeliver(stack(), retried);
    expect(await processQueued()).toMatchObject([{ outcome: "payment_confirmed" }]);
    const after = await state(started.subscription_id);
    expect(after.subscription).toMatchObject({ status: "active", period: 1 });
    expect(after.attempts).toMatchObject([
      { status: "succeeded", transaction_id: message.kind === "partner" ? message.transaction_id : "" },
    ]);
    expect((await stack().events()).map((published) => published.type).sort()).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.activated",
    ]);

    // The same hint again: nothing changes, nothing is announced twice.
    const hint = receiver().requests.find((request) => request.url === "/webhooks/partner");
    if (!hint) throw new Error("the partner event was not sent");
    expect((await invokeRoute(container, hint)).statusCode).toBe(200);
    expect(await processQueued()).toMatchObject([{ outcome: "payment_hint_ignored" }]);
    expect(await state(started.subscription_id)).toEqual(after);
    expect(await stack().events()).toHaveLength(3);
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
    const started = await checkout();
    const before = await state(started.subscription_id);
    expect(
      (await invokeRoute(container, partnerEvent(started.order_id, "SBXT00000000000000000997"))).statusCode,
    ).toBe(200);
    await pastTheGrace();
    expect(await processQueued()).toEqual([
      { outcome: "payment_hint_ignored", note: expect.stringContaining("retrieve does not confirm") },
    ]);
    expect(await state(started.subscription_id)).toEqual(before);
  });

  it("a hint for a sale the billing core already recorded (server-to-server sign-up) changes nothing", async () => {
    const answer = await call("POST", "/v1/subscriptions", {
      body: {
        customer: { name: "Card Customer", email: "card@example.com" },
        plan: { amount: "29.00", currency: "USD", interval_months: 1 },
        card: { number: "5555555555554444", expiry: "203012", cvc: "123" },
      },
    });
    expect(answer.status).toBe(201);
    const { subscription_id } = z.object({ subscription_id: z.string() }).parse(answer.json);
    await stack().sandbox.deliveries.settled();
    const before = await state(subscription_id);
    expect(await processQueued()).toMatchObject([{ outcome: "payment_hint_ignored" }]);
    expect(await state(subscription_id)).toEqual(before);
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
  /** A gateway-managed plan paid in its window: the status_url call waits on the intake queue. */
  async function paidPlan() {
    const started = await checkout({ billing: "recurring" });
    await payInWindow(started.fgkey);
    return started;
  }

  it("records each gateway-run charge once, confirmed by retrieve", async () => {
    const started = await paidPlan();
    await drainIntake(container); // status_url (and the partner hint it races with)
    expect((await state(started.subscription_id)).subscription).toMatchObject({
      status: "active",
      period: 1,
      recurring_id: expect.any(String),
    });

    receiver().reset();
    await stack().clock.advance("P32D"); // the gateway charges the plan and calls recurring_noti_url
    await stack().sandbox.deliveries.settled();
    const notice = receiver().requests.find((request) => request.url.startsWith("/webhooks/recurring?"));
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
    const started = await paidPlan();
    await drainIntake(container);
    const before = await state(started.subscription_id);
    const asked = () => stack().sandbox.faults.counters().byRoute["payments.retrieve"]?.requests ?? 0;
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
    const [first, second] = [await paidPlan(), await paidPlan()];
    await drainIntake(container);
    receiver().reset();
    await stack().clock.advance("P32D");
    await stack().sandbox.deliveries.settled();
    const noticeOf = (id: string) =>
      receiver().requests.find((request) => request.url.includes(`subscription_id=${id}&`));
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
