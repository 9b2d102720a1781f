import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriptionKey } from "../../../functions/adapters/table/billing-table";
import type { ChargeAttempt } from "../../../functions/core/base/model";
import { orderIdFor } from "../../../functions/core/base/order-id";
import { functionNamed } from "../../../functions/function-table";
import { drainQueue } from "../../../local/aws/sqs-emulator";
import { scheduledEvent, stubContext } from "../../../local/lambda/lambda-context";
import { BillingStack } from "../../../local/stack/billing-stack";
import { captureOutput, TestContainer } from "../../support/handler-env";
import { signUpCards } from "../../support/signups";

const sweepAttemptsDefinition = functionNamed("sweep-attempts");

const container = new TestContainer(() => stack);
const sweepAttempts = container.handler(sweepAttemptsDefinition);

/*
 * The attempt sweep as Lambda runs it, on the local stack: two workers "crashed" after claiming period 1 — one after
 * the gateway took its REBILL, one before — and the sweep settles both through retrieve by order_id.
 */

const DAY = 86_400_000;
let stack: BillingStack;
let charged: string;
let neverSent: string;

async function claimStaleAttempt(subscriptionId: string, age = 10 * 60_000): Promise<ChargeAttempt> {
  const past = new Date(Date.now() - age).toISOString();
  const key = { subscription_id: subscriptionId, period: 1, attempt: 0 };
  const attempt: ChargeAttempt = {
    ...key,
    order_id: orderIdFor(key),
    amount: "29.00",
    currency: "USD",
    status: "pending",
    lease_until: past,
    created_at: past,
    updated_at: past,
  };
  expect(await stack.services.repository.claimAttempt(attempt)).toEqual({ claimed: true });
  return attempt;
}

beforeAll(async () => {
  stack = await BillingStack.start({ start: new Date(Date.now() - 40 * DAY) });
  [charged = "", neverSent = ""] = await signUpCards(stack, ["4111111111111111", "5555555555554444"]);
  await stack.clearEvents(); // only what the function publishes is checked
  await stack.clock.set(new Date());
  container.renew();
});

afterAll(async () => {
  await stack.close();
});

describe("sweep-attempts on the local stack", () => {
  it("commits the attempt the gateway charged and hands the other back to the charge queue", async () => {
    const sold = await claimStaleAttempt(charged);
    const subscription = await stack.services.repository.getSubscription(charged);
    if (!subscription?.token_id) throw new Error("no token");
    const rebill = await stack.services.gateway.rebill({
      ...sold,
      token_id: subscription.token_id,
      customer: subscription.customer,
    });
    expect(rebill.kind).toBe("success");
    await claimStaleAttempt(neverSent);
    const output = captureOutput();

    const report = await sweepAttempts(
      scheduledEvent(new Date().toISOString()),
      stubContext("sweep-attempts"),
    );

    expect(report).toEqual({
      examined: 2,
      resolved: 1,
      requeued: 1,
      deferred: 0,
      checkouts: { examined: 0, expired: 0, deferred: 0 },
      credits: { examined: 0, sent: 0 },
      refunds: { examined: 0, settled: 0, deferred: 0 },
      failed: [],
      overdue: [],
    });
    expect((await stack.services.repository.getSubscription(charged))?.period).toBe(2);
    expect(
      (await stack.deliveredEntries()).map((entry) => [
        entry.DetailType,
        JSON.parse(entry.Detail).subscription_id,
      ]),
    ).toEqual([
      ["charge.succeeded", charged],
      ["invoice.finalized", charged],
      ["subscription.updated", charged],
    ]);
    const queued = await drainQueue(stack.sqs.client, stack.chargeQueue.queueUrl);
    expect(queued.map((record) => JSON.parse(record.body))).toEqual([
      { subscription_id: neverSent, period: 1 },
    ]);
    expect(
      (await stack.services.repository.getAttempt({ subscription_id: neverSent, period: 1, attempt: 0 }))
        ?.status,
    ).toBe("voided");
    expect(output.metrics()).toMatchObject({
      "Billing/AttemptsExamined": 2,
      "Billing/AttemptsResolved": 1,
      "Billing/AttemptsRequeued": 1,
      "Billing/AttemptsDeferred": 0,
      "Billing/ChargeSucceeded": 1,
    });
  });

  it("finds nothing left on a second sweep", async () => {
    expect(await sweepAttempts({}, stubContext("sweep-attempts"))).toEqual({
      examined: 0,
      resolved: 0,
      requeued: 0,
      deferred: 0,
      checkouts: { examined: 0, expired: 0, deferred: 0 },
      credits: { examined: 0, sent: 0 },
      refunds: { examined: 0, settled: 0, deferred: 0 },
      failed: [],
      overdue: [],
    });
  });

  it("settles each item on its own: one that throws every time is named, never holding back the refund behind it", async () => {
    // A subscription item no reader can parse: sweeping its open attempt throws, sweep after sweep.
    const [broken = "", refunded = ""] = await signUpCards(stack, ["4111111111111111", "5555555555554444"]);
    const stuck = await claimStaleAttempt(broken, 2 * DAY);
    await stack.dynamo.client.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: subscriptionKey(broken),
        UpdateExpression: "SET #plan = :bad",
        ExpressionAttributeNames: { "#plan": "plan" },
        ExpressionAttributeValues: { ":bad": "not a plan" },
      }),
    );
    // Behind it, a refund of the other's sign-up left open (its worker crashed before holding it).
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    const refund = {
      refund_id: "rf_behind_the_broken",
      subscription_id: refunded,
      order_id: orderIdFor({ subscription_id: refunded, period: 0, attempt: 0 }),
      period: 0,
      attempt: 0,
      amount: "1.00",
      currency: "USD",
      reason: "goodwill",
      status: "pending",
      lease_until: past,
      created_at: past,
      updated_at: past,
    } as const;
    expect((await stack.services.repository.createRefund(refund)).created).toBe(true);
    const output = captureOutput();

    for (let sweep = 1; sweep <= 2; sweep += 1) {
      const report = await sweepAttempts(
        scheduledEvent(new Date().toISOString()),
        stubContext("sweep-attempts"),
      );
      expect(report).toMatchObject({
        failed: [{ id: stuck.order_id, error: expect.any(String) }],
        overdue: [stuck.order_id],
      });
    }
    expect((await stack.services.repository.getRefund(refund.refund_id))?.status).toBe("succeeded");
    expect(output.metrics()).toMatchObject({ "Billing/SweepItemsFailed": 1, "Billing/SweepItemsOverdue": 1 });
    expect(output.logs()).toContainEqual(
      expect.objectContaining({ message: "sweep item failed", id: stuck.order_id }),
    );
  });
});
