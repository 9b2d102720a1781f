import { afterEach, describe, expect, it } from "vitest";
import { dynamoDbDocumentClientOf } from "../../../functions/adapters/aws/dynamodb-client";
import { sqsClientOf } from "../../../functions/adapters/aws/sqs-client";
import { addMonthsClamped } from "../../../functions/core/base/billing-period";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/base/charge-policy";
import type { Subscription } from "../../../functions/core/base/model";
import { compareLedgers } from "../../../local/audit/ledger-comparison";
import {
  countDynamoRequests,
  countSqsRequests,
  dynamoKinds,
  total,
} from "../../../local/aws/sdk-request-counter";
import { approximateMessageCount } from "../../../local/aws/sqs-emulator";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { BillingStack, type BillingStackOptions } from "../../../local/stack/billing-stack";
import {
  crashBeforeCommit,
  crashBeforeRebill,
  decoratedComposition,
} from "../../../local/stack/crash-injection";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import {
  attemptsOf,
  createSandboxToken,
  dueAt,
  eventTypesOf,
  gatewayKnowsOrder,
  gatewayTransactionsPerPeriod,
  MONTHLY,
  renewAt,
  signUpMany,
  signUpOne,
  subscriptionOf,
} from "../../support/billing-scenarios";

/*
 * Exactly once (README, Exactly once: how a charge is made) end to end on the local stack (dynalite, local-aws-sqs,
 * the gateway sandbox, one clock): lost answers, crashed workers, duplicate deliveries and overlapping runs never
 * charge a period twice and never lose one; declines walk the dunning schedule; periods keep their anchor; and what
 * one charge costs in requests.
 */

const APPROVING_CARD = "4111111111111111";
/** Approves the first payment, declines every REBILL of its token. */
const DECLINING_ON_REBILL_CARD = "4000000000000341";
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const START = new Date("2027-03-10T09:00:00.000Z");
/** A minute after the first renewal of the monthly subscriptions signed up at START. */
const RENEWAL = new Date("2027-04-10T09:01:00.000Z");
const PAST_INFLIGHT_WINDOW_MS = DEFAULT_CHARGE_POLICY.inflightWindowMs + MINUTE_MS;

const stacks: BillingStack[] = [];
async function startStack(options: BillingStackOptions): Promise<BillingStack> {
  const stack = await BillingStack.start(options);
  stacks.push(stack);
  return stack;
}
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

/** Exactly once, checked on every test's subscriptions: each at `period`, nothing double-charged, ledgers agree. */
async function expectExactlyOnce(stack: BillingStack, ids: readonly string[], period: number) {
  const comparison = await compareLedgers(stack, ids);
  expect(comparison.subscriptionsNotAtPeriod(period)).toEqual([]);
  expect(comparison.doubleCharges).toEqual([]);
  expect(comparison.mismatches).toEqual([]);
  return comparison;
}

/** Every period of these subscriptions reached the gateway exactly once (a retried order would show twice). */
function expectOneGatewayTransactionPerPeriod(stack: BillingStack, ids: readonly string[], periods: number) {
  const counts = gatewayTransactionsPerPeriod(stack, ids);
  expect(counts.size).toBe(ids.length * periods);
  expect([...counts.values()].every((count) => count === 1)).toBe(true);
}

describe("exactly once under faults", () => {
  it("settles REBILLs whose answer was lost through retrieve, never by sending them again", async () => {
    const stack = await startStack({ start: START, seed: 20270410, gatewayTimeoutMs: 300 });
    const ids = await signUpMany(stack, 40, APPROVING_CARD);
    stack.sandbox.faults.configure({
      routes: { "payments.tokenbilling.rebill": { timeoutAfterCommitRate: 0.3 } },
    });

    const { enqueued, drained } = await renewAt(stack, RENEWAL);
    expect(enqueued).toBe(40);
    expect(drained).toEqual({ processed: 40, failed: 0 });
    const unknown = (await attemptsOf(stack, ids)).filter((attempt) => attempt.status === "unknown");
    const timedOut =
      stack.sandbox.faults.counters().byRoute["payments.tokenbilling.rebill"]?.timeoutAfterCommit ?? 0;
    expect(timedOut).toBeGreaterThan(0);
    // A REBILL slowed past the timeout by a busy machine would be unknown too, and settled the same way.
    expect(unknown.length).toBeGreaterThanOrEqual(timedOut);
    // Inside the in-flight window nothing touches them.
    expect(await stack.attemptSweep()).toMatchObject({ examined: 0 });

    await stack.clock.advance(PAST_INFLIGHT_WINDOW_MS);
    expect(await stack.attemptSweep()).toEqual({
      examined: unknown.length,
      resolved: unknown.length,
      requeued: 0,
      deferred: 0,
      checkouts: { examined: 0, expired: 0, deferred: 0 },
      credits: { examined: 0, sent: 0 },
      refunds: { examined: 0, settled: 0, deferred: 0 },
      failed: [],
      overdue: [],
    });
    expect((await stack.drainChargeQueue()).processed).toBe(0);

    const comparison = await expectExactlyOnce(stack, ids, 2);
    expect(comparison.ours.succeeded).toBe(80);
    // Each lost answer was settled on its own order_id: one attempt, one transaction per period.
    expect(comparison.ours.attempts).toBe(80);
    expectOneGatewayTransactionPerPeriod(stack, ids, 2);
  });

  it("recovers workers that crashed between claim and call and between call and commit", async () => {
    const stack = await startStack({ start: START, seed: 20270411 });
    const ids = await signUpMany(stack, 12, APPROVING_CARD);
    const crashedBeforeCall = ids.slice(0, 4);
    const crashedAfterCall = ids.slice(4, 8);
    // process-charges over a composition whose gateway and repository crash for those subscriptions.
    const crashing = new LambdaFunctions(
      decoratedComposition(stack.composition, [
        crashBeforeRebill(new Set(crashedBeforeCall)),
        crashBeforeCommit(new Set(crashedAfterCall)),
      ]),
    );
    await stack.clock.set(RENEWAL);
    expect((await stack.chargeRun()).enqueued).toBe(12);
    expect(await stack.drainChargeQueue(crashing)).toEqual({ processed: 12, failed: 8 });

    // Left behind: claimed attempts; the gateway has the charges of the second group only.
    const claimed = (await attemptsOf(stack, ids)).filter((attempt) => attempt.status === "pending");
    expect(claimed.map((attempt) => attempt.order_id).sort()).toEqual(
      [...crashedBeforeCall, ...crashedAfterCall].map((id) => `${id}-1-0`).sort(),
    );
    expect(crashedBeforeCall.some((id) => gatewayKnowsOrder(stack, `${id}-1-0`))).toBe(false);
    expect(crashedAfterCall.every((id) => gatewayKnowsOrder(stack, `${id}-1-0`))).toBe(true);

    await stack.clock.advance(PAST_INFLIGHT_WINDOW_MS);
    // After the call: retrieve finds the SALE and commits it. Before it: NONE voids the attempt and requeues.
    expect(await stack.attemptSweep()).toMatchObject({ examined: 8, resolved: 4, requeued: 4, deferred: 0 });
    expect(await stack.drainChargeQueue()).toEqual({ processed: 4, failed: 0 });

    await expectExactlyOnce(stack, ids, 2);
    expectOneGatewayTransactionPerPeriod(stack, ids, 2);
    const ledger = await attemptsOf(stack, ids);
    const statusesOf = (id: string) =>
      ledger.filter((a) => a.subscription_id === id && a.period === 1).map((a) => `${a.attempt}:${a.status}`);
    for (const id of crashedBeforeCall) expect(statusesOf(id)).toEqual(["0:voided", "1:succeeded"]);
    for (const id of crashedAfterCall) expect(statusesOf(id)).toEqual(["0:succeeded"]);
    const renewed = (await stack.events()).filter(
      (event) => event.type === "charge.succeeded" && event.period === 1,
    );
    expect(renewed.map((event) => event.subscription_id).sort()).toEqual([...ids].sort());
  });

  it("charges once through duplicate deliveries, overlapping charge runs and concurrent workers", async () => {
    const stack = await startStack({ start: START, seed: 20270412 });
    const ids = await signUpMany(stack, 30, APPROVING_CARD);
    // Slow REBILLs keep each call in flight while duplicates of its message arrive at the other worker.
    stack.sandbox.faults.configure({ routes: { "payments.tokenbilling.rebill": { latencyMs: 100 } } });
    await stack.clock.set(RENEWAL);
    const runs = await Promise.all([stack.chargeRun(), stack.chargeRun()]);
    expect(runs.map((run) => run.enqueued)).toEqual([30, 30]);
    await stack.services.queue.send(ids.map((subscription_id) => ({ subscription_id, period: 1 })));

    const drains = await Promise.all([stack.drainChargeQueue(), stack.drainChargeQueue()]);
    expect(drains.reduce((sum, drain) => sum + drain.processed, 0)).toBe(90);
    expect(drains.map((drain) => drain.failed)).toEqual([0, 0]);
    expect(await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl)).toBe(0);

    await expectExactlyOnce(stack, ids, 2);
    expectOneGatewayTransactionPerPeriod(stack, ids, 2);
    // Only the writer that moved a subscription announces it: one event per charge.
    const renewed = (await stack.events()).filter(
      (event) => event.type === "charge.succeeded" && event.period === 1,
    );
    expect(renewed.map((event) => event.subscription_id).sort()).toEqual([...ids].sort());
  });
});

describe("dunning", () => {
  it("walks declines through the schedule (1, 3, 5, 7 days) to cancellation", async () => {
    const stack = await startStack({ start: START, seed: 20270413 });
    const id = await signUpOne(stack, DECLINING_ON_REBILL_CARD);
    const waits = DEFAULT_CHARGE_POLICY.dunningScheduleDays;
    expect(waits).toEqual([1, 3, 5, 7]);

    let subscription = await subscriptionOf(stack, id);
    for (let decline = 1; decline <= waits.length + 1; decline += 1) {
      const at = new Date(dueAt(subscription).getTime() + MINUTE_MS);
      expect((await renewAt(stack, at)).enqueued).toBe(1);
      subscription = await subscriptionOf(stack, id);
      const wait = waits[decline - 1];
      if (wait === undefined) {
        expect(subscription).toMatchObject({
          status: "canceled",
          status_reason: "dunning_exhausted",
          period: 1,
        });
        expect(subscription.next_charge_at).toBeUndefined();
      } else {
        expect(subscription).toMatchObject({
          status: "past_due",
          status_reason: "payment_declined",
          period: 1,
          attempt: decline,
          dunning: { step: decline },
        });
        expect(subscription.next_charge_at).toBe(new Date(at.getTime() + wait * DAY_MS).toISOString());
      }
    }
    await stack.clock.advance("P40D");
    expect((await stack.chargeRun()).enqueued).toBe(0);

    expect(await eventTypesOf(stack, id)).toEqual({
      charges: [
        "charge.succeeded", // the sign-up's first payment
        "invoice.finalized",
        ...Array.from({ length: 5 }, () => "charge.failed"),
      ],
      subscription: [
        "subscription.created",
        "subscription.activated",
        "subscription.past_due",
        "subscription.canceled",
      ],
    });
    const comparison = await expectExactlyOnce(stack, [id], 1);
    expect(comparison.ours).toEqual({ attempts: 6, succeeded: 1 });
  });

  it("leaves a subscription past_due after the last retry when the merchant's final action says so", async () => {
    const stack = await startStack({
      start: START,
      seed: 20270415,
      policy: { dunningScheduleDays: [1], dunningFinalAction: "past_due" },
    });
    const id = await signUpOne(stack, DECLINING_ON_REBILL_CARD);
    let subscription = await subscriptionOf(stack, id);
    for (let decline = 1; decline <= 2; decline += 1) {
      expect((await renewAt(stack, new Date(dueAt(subscription).getTime() + MINUTE_MS))).enqueued).toBe(1);
      subscription = await subscriptionOf(stack, id);
    }
    expect(subscription).toMatchObject({ status: "past_due", status_reason: "dunning_exhausted", period: 1 });
    expect(subscription.next_charge_at).toBeUndefined();
    // Nothing more is charged, and the card stays on file for the customer's return.
    await stack.clock.advance("P40D");
    expect((await stack.chargeRun()).enqueued).toBe(0);
    const tokenId = subscription.token_id ?? "";
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, tokenId)?.status).toBe("active");
    expect((await eventTypesOf(stack, id)).subscription).toEqual([
      "subscription.created",
      "subscription.activated",
      "subscription.past_due",
    ]);
  });

  it("reactivates a past_due subscription when a new card pays, keeping the anchored schedule", async () => {
    const stack = await startStack({ start: START, seed: 20270414 });
    const id = await signUpOne(stack, DECLINING_ON_REBILL_CARD);
    const signedUp = await subscriptionOf(stack, id);
    await renewAt(stack, new Date(dueAt(signedUp).getTime() + MINUTE_MS));
    const pastDue = await subscriptionOf(stack, id);
    expect(pastDue).toMatchObject({ status: "past_due", period: 1, attempt: 1, dunning: { step: 1 } });

    const token_id = await createSandboxToken(stack, APPROVING_CARD);
    expect(await stack.services.repository.updateSubscription(id, { expect: {}, set: { token_id } })).toBe(
      true,
    );
    expect((await renewAt(stack, new Date(dueAt(pastDue).getTime() + MINUTE_MS))).enqueued).toBe(1);

    const reactivated = await subscriptionOf(stack, id);
    expect(reactivated).toMatchObject({ status: "active", period: 2, attempt: 0 });
    expect(reactivated.dunning).toBeUndefined();
    expect(reactivated.status_reason).toBeUndefined();
    // Period 2 starts two months after the anchor, whatever the dunning delay of period 1.
    expect(reactivated.next_charge_at).toBe(addMonthsClamped(new Date(signedUp.anchor_at), 2).toISOString());
    expect(await eventTypesOf(stack, id)).toEqual({
      charges: [
        "charge.succeeded",
        "invoice.finalized",
        "charge.failed",
        "charge.succeeded",
        "invoice.finalized",
      ],
      subscription: [
        "subscription.created",
        "subscription.activated",
        "subscription.past_due",
        "subscription.reactivated",
        "subscription.updated",
      ],
    });
    await expectExactlyOnce(stack, [id], 2);
  });
});

describe("billing periods through the charge run", () => {
  async function expectRenewals(start: Date, intervalMonths: number, expected: readonly string[]) {
    const stack = await startStack({ start, seed: 20270415 });
    const id = await signUpOne(stack, APPROVING_CARD, { ...MONTHLY, interval_months: intervalMonths });
    const seen: (string | undefined)[] = [];
    let subscription: Subscription = await subscriptionOf(stack, id);
    seen.push(subscription.next_charge_at);
    for (let renewal = 1; renewal < expected.length; renewal += 1) {
      expect((await renewAt(stack, dueAt(subscription))).enqueued).toBe(1);
      subscription = await subscriptionOf(stack, id);
      seen.push(subscription.next_charge_at);
    }
    expect(seen).toEqual(expected);
    await expectExactlyOnce(stack, [id], expected.length);
  }

  it("keeps a month-end anchor: Jan 31 → Feb 29 → Mar 31 → Apr 30 (2028, a leap year)", async () => {
    await expectRenewals(new Date("2028-01-31T12:00:00.000Z"), 1, [
      "2028-02-29T12:00:00.000Z",
      "2028-03-31T12:00:00.000Z",
      "2028-04-30T12:00:00.000Z",
    ]);
  });

  it("bills a 10-month plan from Mar 31: Jan 31, then Nov 30", { timeout: 60_000 }, async () => {
    await expectRenewals(new Date("2027-03-31T12:00:00.000Z"), 10, [
      "2028-01-31T12:00:00.000Z",
      "2028-11-30T12:00:00.000Z",
    ]);
  });

  it("bills an annual plan from Feb 29, 2028 on Feb 28 of 2029 and 2030", { timeout: 60_000 }, async () => {
    await expectRenewals(new Date("2028-02-29T12:00:00.000Z"), 12, [
      "2029-02-28T12:00:00.000Z",
      "2030-02-28T12:00:00.000Z",
    ]);
  });
});

describe("cost", () => {
  const perCharge = (count: number, charges: number) => Number((count / charges).toFixed(3));

  it("counts the requests of one renewal month of 200 subscriptions", { timeout: 120_000 }, async () => {
    const stack = await startStack({ start: START, seed: 20270416 });
    const ids = await signUpMany(stack, 200, APPROVING_CARD);
    const dynamo = countDynamoRequests(dynamoDbDocumentClientOf(stack.runtime));
    const sqs = countSqsRequests(sqsClientOf(stack.runtime));

    await stack.clock.set(RENEWAL);
    expect((await stack.chargeRun()).enqueued).toBe(200);
    const run = { dynamo: dynamo.take(), sqs: sqs.take() };
    const drained = await stack.drainChargeQueue();
    expect(drained).toEqual({ processed: 200, failed: 0 });
    const worker = { dynamo: dynamo.take(), sqs: sqs.take() };
    const charges = (await expectExactlyOnce(stack, ids, 2)).ours.succeeded - ids.length;
    expect(charges).toBe(200);

    const row = (counts: { dynamo: Record<string, number>; sqs: Record<string, number> }) => {
      const db = dynamoKinds(counts.dynamo);
      return {
        "DynamoDB writes": perCharge(db.writes, charges),
        "DynamoDB reads": perCharge(db.reads, charges),
        "of which Query": perCharge(db.queries, charges),
        Scan: db.scans,
        "DynamoDB other": db.other,
        "SQS requests": perCharge(total(counts.sqs), charges),
      };
    };
    const sum = (a: Record<string, number>, b: Record<string, number>) => {
      const merged = { ...a };
      for (const [name, count] of Object.entries(b)) merged[name] = (merged[name] ?? 0) + count;
      return merged;
    };
    const all = { dynamo: sum(run.dynamo, worker.dynamo), sqs: sum(run.sqs, worker.sqs) };
    const table = { "charge run": row(run), worker: row(worker), total: row(all) };
    console.info(
      `Requests per successful charge, one renewal month of ${charges} subscriptions:`,
      table,
      "by command:",
      all,
    );

    expect(table.total.Scan).toBe(0);
    expect(table.total["DynamoDB other"]).toBe(0);
    // claim (Put) + the invoice (Put) + close (Update) + advance (Update); the run adds one watermark Put per run, not
    // per charge.
    expect(table.worker["DynamoDB writes"]).toBeLessThanOrEqual(4);
    expect(dynamoKinds(run.dynamo).writes).toBeLessThanOrEqual(1);
    // The subscription, the invoices' last number (its holder is known held: the close before it was this process's).
    expect(table.worker["DynamoDB reads"]).toBeLessThanOrEqual(3);
    expect(table.total["DynamoDB reads"]).toBeLessThanOrEqual(3 + table["charge run"]["DynamoDB reads"]);
    expect(table.total["SQS requests"]).toBeLessThan(1);
  });
});
