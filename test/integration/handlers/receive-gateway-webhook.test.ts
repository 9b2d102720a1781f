import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteBatch } from "../../../functions/adapters/aws/sqs-poller";
import type { ChargeAttempt } from "../../../functions/core/base/model";
import { functionNamed } from "../../../functions/function-table";
import {
  formatTransmissionTime,
  signWebhookBody,
  webhookHeaderNames,
} from "../../../functions/gateway/webhook-signature";
import { webhookDedupKey } from "../../../functions/inbound/gateway-webhook-receipt";
import { approximateMessageCount } from "../../../local/aws/sqs-emulator";
import { stubContext } from "../../../local/lambda/lambda-context";
import { receiveLambdaEvent } from "../../../local/lambda/sqs-lambda-event";
import { BillingStack } from "../../../local/stack/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { captureOutput, TestContainer } from "../../support/handler-env";
import type { RecordedRequest } from "../../support/recording-server";
import { callSandbox } from "../../support/sandbox-gateway";
import { signUpCards } from "../../support/signups";
import {
  drainIntake,
  invokeRoute,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../support/webhook-receiver";

const processIntakeDefinition = functionNamed("process-intake");

const container = new TestContainer(() => stack);
const processIntake = container.handler(processIntakeDefinition);

/*
 * Gateway webhooks (CHARGEBACK, PAYOUT_*) as the sandbox sends them — signed with the merchant's webhook secret,
 * transmission time in its header — through API Gateway's v2 event (Base64 body) into receive-gateway-webhook,
 * then process-intake. The security cases replay, tamper with and strip a captured real delivery.
 */

const NAMES = webhookHeaderNames();
const ACK = { rescode: "0000", resmsg: "Success" };
const FAIL = { rescode: "XXXX", resmsg: "signature_fail" };

let receiver: WebhookReceiver;
let stack: BillingStack;
let subscriptionId: string;
/** The signed CHARGEBACK delivery the sandbox sent, as received. */
let captured: RecordedRequest;

const intakeDepth = () => approximateMessageCount(stack.sqs.client, stack.intakeQueue.queueUrl);
const charge = async (): Promise<ChargeAttempt | undefined> =>
  stack.services.repository.getAttempt({ subscription_id: subscriptionId, period: 0, attempt: 0 });
const replyOf = (reply: { statusCode?: number; body?: string }) => ({
  status: reply.statusCode,
  json: JSON.parse(reply.body ?? "null"),
});

/** The captured delivery with some headers or the body changed, sent to our route as API Gateway would. */
function resend(change: { body?: string; headers?: Record<string, string | undefined> } = {}) {
  const headers = { ...captured.headers, ...change.headers };
  return invokeRoute(
    container,
    { method: "POST", url: "/webhooks/gateway", headers, body: change.body ?? captured.body },
    { base64: true },
  );
}

// On the handler's clock (the stack's, set to the real now once at the start and not moving with it), so that a
// window edge like "301 s ago" does not drift as the file runs.
const freshTime = (offsetMs = 0) =>
  formatTransmissionTime(new Date(stack.clock.now().getTime() + offsetMs), 540);

/** A body signed with the merchant's webhook secret and sent now, as the gateway sends a delivery. */
const sendSigned = (body: string) =>
  resend({
    body,
    headers: {
      [NAMES.signature]: signWebhookBody(body, TEST_MERCHANT.webhookSecret),
      [NAMES.transmissionTime]: freshTime(),
    },
  });

beforeAll(async () => {
  receiver = await startWebhookReceiver(container);
  stack = await BillingStack.start({ webhookBaseUrl: receiver.webhookBaseUrl });
  [subscriptionId = ""] = await signUpCards(stack, ["4111111111111111"]);
  const set = await callSandbox(stack.sandbox, "/sandbox/webhooks/chargeback-url", {
    method: "PUT",
    body: { url: `${receiver.webhookBaseUrl}/gateway` },
  });
  expect(set.status).toBe(200);
});
beforeEach(() => container.renew());
afterAll(async () => {
  await stack.close();
  await receiver.close();
});

describe("CHARGEBACK webhook intake", () => {
  it("verifies the real signed delivery, acknowledges it, queues it and marks the charge disputed once", async () => {
    // The handler checks the transmission time against the real clock: the sandbox sends at real now.
    await stack.clock.set(new Date());
    const transactionId = (await charge())?.transaction_id ?? "";
    const triggered = await callSandbox(stack.sandbox, "/sandbox/webhooks/chargeback", {
      body: { transaction_id: transactionId },
    });
    expect(triggered.status).toBe(200);
    await stack.sandbox.deliveries.settled();
    const [request] = receiver.requests.filter((recorded) => recorded.url === "/webhooks/gateway");
    if (!request) throw new Error("no CHARGEBACK delivery");
    captured = request;
    expect(captured.headers[NAMES.signature]).toBe(
      signWebhookBody(captured.body, TEST_MERCHANT.webhookSecret),
    );
    expect(stack.sandbox.deliveries.entries("webhook")).toMatchObject([{ status: 200, acknowledged: true }]);
    expect(await intakeDepth()).toBe(1);
    // Nothing changed yet, and the ids queued are ids only.
    expect((await charge())?.disputed).toBeUndefined();

    const event = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
    // The real body: no chargeback id, the chargeback's status and dates.
    expect(JSON.parse(event.Records[0]?.body ?? "{}")).toEqual({
      kind: "gateway",
      type: "CHARGEBACK",
      transaction_id: transactionId,
      order_id: `${subscriptionId}-0-0`,
      chargeback: {
        status: "REPORTED",
        reason: "Cardholder dispute",
        report_date: expect.stringMatching(/^\d{8}$/),
        deadline: expect.stringMatching(/^\d{8}$/),
      },
      received_at: expect.any(String),
    });
    const output = captureOutput();
    // Delivered twice (SQS is at least once): the chargeback is recorded and announced once.
    for (let delivery = 0; delivery < 2; delivery += 1) {
      expect(await processIntake(event, stubContext("process-intake"))).toEqual({ batchItemFailures: [] });
    }
    expect(await charge()).toMatchObject({ status: "succeeded", disputed: true });
    const chargebacks = (await stack.deliveredEntries()).filter(
      (entry) => entry.DetailType === "chargeback.received",
    );
    expect(chargebacks).toHaveLength(1);
    expect(JSON.parse(chargebacks[0]?.Detail ?? "{}")).toMatchObject({
      subscription_id: subscriptionId,
      order_id: `${subscriptionId}-0-0`,
      transaction_id: transactionId,
      amount: "29.00",
    });
    expect(output.metrics()).toMatchObject({ "Billing/ChargebacksDuplicate": 1 });
    // Lambda deletes what the function did not report as failed.
    expect(await deleteBatch(stack.sqs.client, stack.intakeQueue.queueUrl, event.Records)).toEqual([]);
  });

  it("a replay of the delivery (the gateway's re-send: same body, fresh time) is acknowledged, not queued", async () => {
    const before = await charge();
    const output = captureOutput();
    const reply = await resend({ headers: { [NAMES.transmissionTime]: freshTime() } });
    expect(replyOf(reply)).toEqual({ status: 200, json: ACK });
    expect(await intakeDepth()).toBe(0);
    expect(await charge()).toEqual(before);
    expect(output.metrics()).toMatchObject({ "Billing/GatewayWebhooksDuplicate": 1 });
  });

  it.each([
    ["tampered body", () => ({ body: captured.body.replace('"29.00"', '"2.90"') })],
    ["missing signature", () => ({ headers: { [NAMES.signature]: undefined } })],
    [
      "signature under another secret",
      () => ({ headers: { [NAMES.signature]: signWebhookBody(captured.body, "x".repeat(32)) } }),
    ],
    ["missing transmission time", () => ({ headers: { [NAMES.transmissionTime]: undefined } })],
    ["stale transmission time", () => ({ headers: { [NAMES.transmissionTime]: freshTime(-301_000) } })],
    [
      "transmission time from the future",
      () => ({ headers: { [NAMES.transmissionTime]: freshTime(301_000) } }),
    ],
  ])("%s → signature_fail, nothing queued, nothing changed", async (_name, change) => {
    const before = await charge();
    const published = (await stack.deliveredEntries()).length;
    const output = captureOutput();
    const altered = change();
    expect(replyOf(await resend(altered))).toEqual({ status: 401, json: FAIL });
    expect(await intakeDepth()).toBe(0);
    expect(await charge()).toEqual(before);
    expect(await stack.deliveredEntries()).toHaveLength(published);
    expect(output.metrics()).toMatchObject({ "Billing/GatewayWebhooksRejected": 1 });
  });

  it("a rejected delivery leaves no de-duplication record: the genuine one still gets through", async () => {
    const body = captured.body.replace('"chargeback_reason":"', '"chargeback_reason":"second ');
    const forged = await resend({ body, headers: { [NAMES.transmissionTime]: freshTime() } });
    expect(replyOf(forged)).toEqual({ status: 401, json: FAIL });
    const signed = await sendSigned(body);
    expect(replyOf(signed)).toEqual({ status: 200, json: ACK });
    expect(await intakeDepth()).toBe(1);
    // The same chargeback again: processed, and nothing changes (already disputed).
    const output = captureOutput();
    await drainIntake(container);
    expect(output.metrics()).toMatchObject({
      "Billing/ChargebacksDuplicate": 1,
      "Billing/ChargebacksReceived": 0,
    });
    expect(
      (await stack.deliveredEntries()).filter((entry) => entry.DetailType === "chargeback.received"),
    ).toHaveLength(1);
  });

  it("accepts the next secret during a rotation", async () => {
    stack.secretsManager.setSecret(
      stack.variables().WEBHOOK_SECRETS_ARN ?? "",
      JSON.stringify({ current: "old_secret_being_rotated", next: TEST_MERCHANT.webhookSecret }),
    );
    try {
      container.renew();
      const body = JSON.stringify({
        rescode: "0000",
        resmsg: "Success",
        type: "PAYOUT_REMITTANCE_COMPLETE",
        data: {},
      });
      const reply = await sendSigned(body);
      expect(replyOf(reply)).toEqual({ status: 200, json: ACK });
      const output = captureOutput();
      await drainIntake(container);
      expect(output.metrics()).toMatchObject({ "Billing/PayoutNotices": 1 });
    } finally {
      stack.secretsManager.setSecret(
        stack.variables().WEBHOOK_SECRETS_ARN ?? "",
        JSON.stringify({ current: TEST_MERCHANT.webhookSecret }),
      );
    }
  });

  it("a failed hand-over to the queue forgets the delivery, so the gateway's re-send is taken", async () => {
    const body = JSON.stringify({
      rescode: "0000",
      resmsg: "Success",
      type: "PAYOUT_SUBMALL_REVIEW_COMPLETE",
      data: {},
    });
    const headers = {
      [NAMES.signature]: signWebhookBody(body, TEST_MERCHANT.webhookSecret),
      [NAMES.transmissionTime]: freshTime(),
    };
    container.renew({ INTAKE_QUEUE_URL: `${stack.sqs.endpoint}/000000000000/no-such-queue` });
    await expect(resend({ body, headers })).rejects.toThrow();
    container.renew();
    expect(
      await stack.services.repository.recordOnce(
        webhookDedupKey(Buffer.from(body)),
        new Date(Date.now() + 60_000),
      ),
    ).toBe(true);
    await stack.services.repository.forgetOnce(webhookDedupKey(Buffer.from(body)));
    expect(replyOf(await resend({ body, headers }))).toEqual({ status: 200, json: ACK });
    expect(await intakeDepth()).toBe(1);
    await drainIntake(container);
  });

  it("records the real body's chargeback lifecycle: each status once, announced as received then updated", async () => {
    const disputed = await charge();
    const realBody = (status: string, dates: Record<string, string>) =>
      // The real gateway's CHARGEBACK (README, The real gateway): no rescode, no chargeback id, the status in data.
      JSON.stringify({
        type: "CHARGEBACK",
        data: {
          mid: TEST_MERCHANT.mid,
          order_id: disputed?.order_id,
          transaction_id: disputed?.transaction_id,
          currency: "USD",
          amount: "29.00",
          payment_method: "P101",
          payer_authentication_flag: "N",
          refund_flag: "N",
          chargeback_status: status,
          chargeback_reason: "Merchandise not received",
          chargeback_report_date: "20270320",
          chargeback_deadline: "20270410",
          ...dates,
        },
      });
    const deliver = async (body: string) =>
      expect(replyOf(await sendSigned(body))).toEqual({ status: 200, json: ACK });
    const recorded = captureOutput();
    await deliver(realBody("DEDUCTION", { chargeback_deduct_date: "20270411" }));
    await drainIntake(container);
    expect(recorded.metrics()).toMatchObject({ "Billing/ChargebacksReceived": 1 });
    // The same status in a different body (a field the gateway filled in later) is no new status.
    const again = captureOutput();
    await deliver(realBody("DEDUCTION", { chargeback_deduct_date: "20270411", param3: "again" }));
    await drainIntake(container);
    expect(again.metrics()).toMatchObject({
      "Billing/ChargebacksReceived": 0,
      "Billing/ChargebacksDuplicate": 1,
    });
    const after = await charge();
    expect(after).toMatchObject({
      disputed: true,
      dispute: {
        status: "DEDUCTION",
        reason: "Merchandise not received",
        deadline: "20270410",
        deduct_date: "20270411",
        revision: 2,
      },
    });
    expect(after?.dispute?.history.map((entry) => entry.status)).toEqual(["REPORTED", "DEDUCTION"]);
    const updates = (await stack.deliveredEntries()).filter(
      (entry) => entry.DetailType === "chargeback.updated",
    );
    expect(updates).toHaveLength(1);
    expect(JSON.parse(updates[0]?.Detail ?? "{}")).toMatchObject({
      order_id: disputed?.order_id,
      chargeback_status: "DEDUCTION",
      previous_status: "REPORTED",
    });
    expect(
      (await stack.deliveredEntries()).filter((entry) => entry.DetailType === "chargeback.received"),
    ).toHaveLength(1);
  });

  it("an unmatched chargeback (an order that is not ours) is counted for a human and changes nothing", async () => {
    const body = JSON.stringify({
      rescode: "0000",
      resmsg: "Success",
      type: "CHARGEBACK",
      data: {
        transaction_id: "SBXT99999999999999999999",
        order_id: "someone-elses-order",
        chargeback_id: "C1",
      },
    });
    const reply = await sendSigned(body);
    expect(replyOf(reply)).toEqual({ status: 200, json: ACK });
    const published = (await stack.deliveredEntries()).length;
    const output = captureOutput();
    await drainIntake(container);
    expect(output.metrics()).toMatchObject({ "Billing/ChargebacksUnmatched": 1 });
    expect(await stack.deliveredEntries()).toHaveLength(published);
  });

  it("a chargeback of a line whose outcome is still open settles it by retrieve at once, then is recorded", async () => {
    // A renewal whose REBILL the gateway took but whose answer was lost: the line is unknown until retrieve settles it.
    const subscription = await stack.services.repository.getSubscription(subscriptionId);
    if (subscription?.token_id === undefined) throw new Error("no token");
    const now = stack.clock.now();
    const key = { subscription_id: subscriptionId, period: subscription.period, attempt: 0 };
    const line: ChargeAttempt = {
      ...key,
      order_id: `${subscriptionId}-${key.period}-0`,
      amount: "19.90",
      currency: "USD",
      status: "unknown",
      lease_until: new Date(now.getTime() + 60_000).toISOString(),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    expect(await stack.services.repository.claimAttempt(line)).toEqual({ claimed: true });
    const sold = await stack.services.gateway.rebill({
      ...line,
      token_id: subscription.token_id,
      customer: subscription.customer,
    });
    if (sold.kind !== "success") throw new Error("the sandbox refused the sale");
    const body = JSON.stringify({
      rescode: "0000",
      resmsg: "Success",
      type: "CHARGEBACK",
      data: { transaction_id: sold.value.transaction_id, order_id: line.order_id, chargeback_id: "C-OPEN" },
    });
    expect(replyOf(await sendSigned(body))).toEqual({ status: 200, json: ACK });
    const delivery = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
    const output = captureOutput();

    // The signed chargeback proves the sale: the line is settled now (the attempt sweep need not come first, which
    // may be a day away), its period moves on, and the chargeback is recorded on it.
    expect((await processIntake(delivery, stubContext("process-intake"))).batchItemFailures).toEqual([]);
    expect(output.metrics()).toMatchObject({
      "Billing/ChargebacksReceived": 1,
      "Billing/ChargebacksUnmatched": 0,
    });
    expect(await stack.services.repository.getAttempt(key)).toMatchObject({
      status: "succeeded",
      transaction_id: sold.value.transaction_id,
      disputed: true,
      dispute: { status: "REPORTED" },
    });
    expect((await stack.services.repository.getSubscription(subscriptionId))?.period).toBe(key.period + 1);
    await stack.clock.advance(2 * 60_000);
    expect((await stack.attemptSweep()).examined).toBe(0);
  });
});
