import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteBatch } from "../../../functions/adapters/aws/sqs-poller";
import { functionNamed } from "../../../functions/function-table";
import { compareLedgers } from "../../../local/audit/ledger-comparison";
import { approximateMessageCount } from "../../../local/aws/sqs-emulator";
import { scheduledEvent, stubContext } from "../../../local/lambda/lambda-context";
import { receiveLambdaEvent } from "../../../local/lambda/sqs-lambda-event";
import { BillingStack } from "../../../local/stack/billing-stack";
import { captureOutput, TestContainer } from "../../support/handler-env";
import { signUpCards } from "../../support/signups";

const processChargesDefinition = functionNamed("process-charges");
const runChargesDefinition = functionNamed("run-charges");

const container = new TestContainer(() => stack);
const processCharges = container.handler(processChargesDefinition);
const runCharges = container.handler(runChargesDefinition);

/*
 * The scheduled charge run and the SQS charge worker as Lambda runs them: handlers wrapped in their middleware,
 * services built from the environment (the SDK reaching dynalite, local-aws-sqs, the Secrets Manager and EventBridge
 * stand-ins through AWS_ENDPOINT_URL_*), the gateway secret read from Secrets Manager, the sandbox as the gateway.
 * The functions run on the real clock, so the subscriptions are signed up 40 days ago on the sandbox's clock.
 */

const DAY = 86_400_000;
const CARDS = {
  approve: "4111111111111111",
  approveToo: "5555555555554444",
  declineOnRebill: "4000000000000341",
};

let stack: BillingStack;
const ids: string[] = [];

beforeAll(async () => {
  stack = await BillingStack.start({ start: new Date(Date.now() - 40 * DAY) });
  ids.push(...(await signUpCards(stack, Object.values(CARDS))));
  await stack.clearEvents(); // only what the functions publish is checked
  await stack.clock.set(new Date());
});

afterAll(async () => {
  await stack.close();
});

beforeEach(() => container.renew());

describe("run-charges and process-charges on the local stack", () => {
  it("the charge run enqueues every due subscription from an EventBridge scheduled event", async () => {
    const output = captureOutput();
    const report = await runCharges(scheduledEvent(new Date().toISOString()), stubContext("run-charges"));
    expect(report.enqueued).toBe(3);
    expect(await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl)).toBe(3);
    expect(output.metrics()).toEqual({ "Billing/DueSubscriptionsEnqueued": 3 });
  });

  it("the worker charges the received batch, publishes to EventBridge and reports no failure", async () => {
    const event = await receiveLambdaEvent(stack.sqs.client, stack.chargeQueue.queueUrl);
    expect(event.Records).toHaveLength(3);
    const output = captureOutput();

    const response = await processCharges(event, stubContext("process-charges"));

    expect(response).toEqual({ batchItemFailures: [] });
    // Lambda deletes what the function did not report as failed.
    expect(await deleteBatch(stack.sqs.client, stack.chargeQueue.queueUrl, event.Records)).toEqual([]);
    expect((await stack.deliveredEntries()).map((entry) => entry.DetailType).sort()).toEqual([
      "charge.failed",
      "charge.succeeded",
      "charge.succeeded",
      "invoice.finalized",
      "invoice.finalized",
      "subscription.past_due",
      "subscription.updated",
      "subscription.updated",
    ]);
    expect(new Set((await stack.deliveredEntries()).map((entry) => entry.EventBusName))).toEqual(
      new Set(["billing-local"]),
    );
    const subscriptions = await Promise.all(ids.map((id) => stack.services.repository.getSubscription(id)));
    expect(subscriptions.map((subscription) => [subscription?.period, subscription?.status])).toEqual([
      [2, "active"],
      [2, "active"],
      [1, "past_due"],
    ]);
    expect(output.metrics()).toMatchObject({
      "Billing/ChargeSucceeded": 2,
      "Billing/ChargeDeclined": 1,
      "Billing/SubscriptionPastDue": 1,
      "Billing/ChargeMessagesRetried": 0,
    });
    for (const secret of [...Object.values(CARDS), "sandbox_api_key_test_merchant"]) {
      expect(output.text()).not.toContain(secret);
    }
  });

  it("a redelivered batch charges nothing twice", async () => {
    await stack.clock.set(new Date());
    await runCharges({}, stubContext("run-charges")); // the declined subscription is not due again yet
    const event = await receiveLambdaEvent(stack.sqs.client, stack.chargeQueue.queueUrl);
    const published = (await stack.deliveredEntries()).length;
    for (let delivery = 0; delivery < 2; delivery += 1) {
      expect(await processCharges(event, stubContext("process-charges"))).toEqual({ batchItemFailures: [] });
    }
    expect((await stack.deliveredEntries()).length).toBe(published);
    const ledgers = await compareLedgers(stack, ids);
    expect(ledgers.doubleCharges).toEqual([]);
    expect(ledgers.mismatches).toEqual([]);
    expect(ledgers.sandbox.sales).toBe(3 + 2);
  });

  it("leaves a transiently failed message on the queue with its backoff as visibility", async () => {
    const [id] = ids;
    if (id === undefined) throw new Error("no subscription");
    await stack.services.queue.send([{ subscription_id: id, period: 2 }]);
    await stack.services.repository.updateSubscription(id, {
      expect: { period: 2 },
      set: { next_charge_at: new Date(Date.now() - 60_000).toISOString() },
    });
    stack.sandbox.faults.configure({ throttleRate: 1 });
    const event = await receiveLambdaEvent(stack.sqs.client, stack.chargeQueue.queueUrl);
    const [record] = event.Records;
    const output = captureOutput();

    const response = await processCharges(event, stubContext("process-charges"));
    stack.sandbox.faults.configure({});

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: record?.messageId }] });
    expect(output.metrics()).toMatchObject({
      "Billing/GatewayUnavailable": 1,
      "Billing/ChargeMessagesRetried": 1,
    });
    // Invisible for the backoff (30 s at the first receive), not redelivered at once.
    expect((await receiveLambdaEvent(stack.sqs.client, stack.chargeQueue.queueUrl)).Records).toEqual([]);
  });
});
