import { performance } from "node:perf_hooks";
import { afterAll, expect, it } from "vitest";
import { dynamoDbDocumentClientOf } from "../../../functions/adapters/aws/dynamodb-client";
import { sqsClientOf } from "../../../functions/adapters/aws/sqs-client";
import { addMonthsClamped } from "../../../functions/core/base/billing-period";
import { mapConcurrently } from "../../../functions/shared/map-concurrently";
import { countDynamoRequests, countSqsRequests, dynamoKinds } from "../../../local/aws/sdk-request-counter";
import { approximateMessageCount } from "../../../local/aws/sqs-emulator";
import { BillingStack } from "../../../local/stack/billing-stack";
import { MONTHLY } from "../../support/billing-scenarios";

// The charge run at size (an e2e test): 10,000 due subscriptions listed by Query, never by Scan, and sent in
// batches. It prints the run's time and requests; the throughput figures live in `npm run bench`.

const MINUTE_MS = 60_000;
const START = new Date("2027-03-10T09:00:00.000Z");

const stacks: BillingStack[] = [];
afterAll(() => Promise.all(stacks.map((stack) => stack.close())));

it("fans out 10,000 due subscriptions with Queries and batched sends", { timeout: 180_000 }, async () => {
  const count = 10_000;
  const stack = await BillingStack.start({ start: START, seed: 20270417 });
  stacks.push(stack);
  const now = START.toISOString();
  const anchor = addMonthsClamped(START, -1).toISOString();
  const created = await mapConcurrently(Array.from({ length: count }), 32, (_, n) =>
    stack.services.repository.createSubscription({
      subscription_id: `sub_fanout${String(n).padStart(6, "0")}`,
      status: "active",
      billing_mode: "token",
      customer: { name: `Customer ${n}`, email: `customer${n}@example.com` },
      plan: MONTHLY,
      anchor_at: anchor,
      period: 1,
      attempt: 0,
      next_charge_at: new Date(START.getTime() - MINUTE_MS).toISOString(),
      token_id: "tok_never_charged",
      created_at: anchor,
      updated_at: now,
    }),
  );
  expect(created.every(Boolean)).toBe(true);
  const dynamo = countDynamoRequests(dynamoDbDocumentClientOf(stack.runtime));
  const sqs = countSqsRequests(sqsClientOf(stack.runtime));

  const startedAt = performance.now();
  const run = await stack.chargeRun();
  const elapsedMs = Math.round(performance.now() - startedAt);

  expect(run.enqueued).toBe(count);
  // local-aws-sqs counts a message sent only once a zero-delay timer of its own has fired: on a busy machine the
  // last batch can still be waiting for it when the run returns.
  await expect.poll(() => approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl)).toBe(count);
  const requests = { dynamo: dynamo.take(), sqs: sqs.take() };
  const db = dynamoKinds(requests.dynamo);
  expect(db.scans).toBe(0);
  console.info(`Charge run fan-out of ${count} due subscriptions:`, {
    "time (ms)": elapsedMs,
    "messages/s": Math.round((count / elapsedMs) * 1000),
    pages: run.pages,
    Query: db.queries,
    Scan: db.scans,
    "SendMessageBatch (incl. the count above)": requests.sqs.SendMessageBatchCommand ?? 0,
    "by command": requests,
  });
});
