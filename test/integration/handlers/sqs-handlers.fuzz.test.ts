import "../../support/log-everything";
import { ChangeMessageVisibilityCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { deleteBatch } from "../../../functions/adapters/aws/sqs-poller";
import { parseIntakeMessage } from "../../../functions/core/ports/intake-messages";
import { parseChargeMessage } from "../../../functions/core/ports/queues";
import { leakSecretsOf, outputSources, scanForLeaks } from "../../../local/audit/leak-scan";
import { approximateMessageCount, drainQueue } from "../../../local/aws/sqs-emulator";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { receiveLambdaEvent } from "../../../local/lambda/sqs-lambda-event";
import { BillingStack } from "../../../local/stack/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { hostileBodies } from "../../support/fuzz-requests";
import { captureFileOutput } from "../../support/handler-env";
import { signUpCards } from "../../support/signups";
import { stackState } from "../../support/stack-state";

// process-charges and process-intake, invoked as Lambda invokes them (their rows of the function table, Lambda-shaped
// SQS events really received from their queues), get about FUZZ_RUNS hostile bodies each (default 200): random JSON,
// the valid message with one field mutated, wrong types, huge strings, prototype keys, non-JSON, and well-formed
// messages about subscriptions and orders that do not exist. No invocation may throw; a body that is not a message
// is reported as a batch item failure (never deleted) and reaches the DLQ after maxReceiveCount receives
// (the queue handlers answer batchItemFailures); nothing changes in the table or at the gateway.

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/** ~50 ms per message here, with a margin for a busy machine and FUZZ_RUNS=10000. */
const HANDLER_TIMEOUT_MS = Math.max(120_000, RUNS * 250);
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_310);
const START = new Date("2027-03-01T10:00:00.000Z");
const MAX_RECEIVE_COUNT = 8;
/** Messages per invocation, as the function table's batch size would have it (at most 10). */
const BATCH = 10;

/** Characters SQS accepts in a body (other bodies, and empty ones, are refused at SendMessage: no handler sees them). */
const SQS_BODY = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

const batchResponse = z.object({ batchItemFailures: z.array(z.object({ itemIdentifier: z.string() })) });

interface Worker {
  readonly name: "process-charges" | "process-intake";
  readonly queue: () => { queueUrl: string; dlqUrl: string };
  readonly parse: (body: string) => unknown;
  /** Valid messages, processed without effect on billing state. */
  readonly samples: () => readonly unknown[];
  readonly unknownIds: fc.Arbitrary<unknown>;
}

let stack: BillingStack;
let subscriptionId: string;
let functions: LambdaFunctions;
const output = captureFileOutput();
const stats: string[] = [];

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const receivedAt = START.toISOString();

const WORKERS: readonly Worker[] = [
  {
    name: "process-charges",
    queue: () => stack.chargeQueue,
    parse: parseChargeMessage,
    // Period 0 was paid at sign-up: its message again is a duplicate the worker acknowledges.
    samples: () => [{ subscription_id: subscriptionId, period: 0 }],
    unknownIds: fc.record({ subscription_id: id, period: fc.integer({ min: 0, max: 10_000 }) }),
  },
  {
    name: "process-intake",
    queue: () => stack.intakeQueue,
    parse: parseIntakeMessage,
    samples: () => [
      { kind: "status", query: `order_id=${subscriptionId}-0-0&fgkey=00`, received_at: receivedAt },
      { kind: "gateway", type: "PAYOUT_REMITTANCE_COMPLETE", received_at: receivedAt },
      { kind: "partner", order_id: `${subscriptionId}-0-0`, received_at: receivedAt },
      {
        kind: "recurring",
        subscription_id: subscriptionId,
        order_id: "ORD_UNKNOWN",
        received_at: receivedAt,
      },
    ],
    unknownIds: fc.oneof(
      fc.record({
        kind: fc.constant("gateway"),
        type: fc.constant("CHARGEBACK"),
        transaction_id: id,
        received_at: fc.constant(receivedAt),
      }),
      fc.record({
        kind: fc.constant("partner"),
        transaction_id: id,
        order_id: id,
        received_at: fc.constant(receivedAt),
      }),
      fc.record({
        kind: fc.constant("recurring"),
        subscription_id: id,
        order_id: id,
        received_at: fc.constant(receivedAt),
      }),
    ),
  },
];

/** Hostile bodies for a worker: mutations of each sample, random and non-JSON text, unknown ids. */
function bodiesFor(worker: Worker): fc.Arbitrary<{ kind: string; text: string }> {
  return fc
    .oneof(
      fc.constantFrom(...worker.samples()).chain((sample) => hostileBodies(sample, true)),
      worker.unknownIds.map((message) => ({ kind: "unknown ids", text: JSON.stringify(message) })),
    )
    .filter(
      (body) => body.text !== "" && SQS_BODY.test(body.text) && Buffer.byteLength(body.text) <= 256 * 1024,
    );
}

function isMalformed(worker: Worker, body: string): boolean {
  try {
    worker.parse(body);
    return false;
  } catch {
    return true;
  }
}

/** Receives what is visible and invokes the worker as the event source mapping does; deletes the successes. */
async function invokeOnce(worker: Worker, queueUrl: string) {
  const event: SQSEvent = await receiveLambdaEvent(stack.sqs.client, queueUrl, BATCH);
  if (event.Records.length === 0) return { event, response: { batchItemFailures: [] } };
  const response: SQSBatchResponse = batchResponse.parse(await functions.invoke(worker.name, event));
  await deleteBatch(stack.sqs.client, queueUrl, event.Records, response.batchItemFailures);
  return { event, response };
}

/** Makes every in-flight message visible again: what the visibility timeout does, without waiting 30 s. */
async function expireVisibility(queueUrl: string, receiptHandles: readonly string[]) {
  for (const handle of receiptHandles) {
    await stack.sqs.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: handle, VisibilityTimeout: 0 }),
    );
  }
}

beforeAll(async () => {
  stack = await BillingStack.start({ start: START, maxReceiveCount: MAX_RECEIVE_COUNT });
  functions = new LambdaFunctions(stack.compose());
  [subscriptionId = ""] = await signUpCards(stack, ["4111111111111111"]);
}, 60_000);

afterAll(async () => {
  await stack?.close();
  if (stats.length > 0) console.log(`SQS handler fuzz, seed ${SEED}:\n${stats.join("\n")}`);
});

describe.each(WORKERS.map((worker) => [worker.name, worker] as const))("%s", (name, worker) => {
  it("processes its valid messages: acknowledged and deleted, billing state unchanged", async () => {
    const { queueUrl } = worker.queue();
    const before = await stackState(stack);
    for (const sample of worker.samples()) {
      await stack.sqs.client.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(sample) }),
      );
    }
    const { event, response } = await invokeOnce(worker, queueUrl);
    expect(event.Records).toHaveLength(worker.samples().length);
    expect(response.batchItemFailures).toEqual([]);
    expect(await approximateMessageCount(stack.sqs.client, queueUrl)).toBe(0);
    expect(await stackState(stack)).toEqual(before);
  });

  it(
    `survives ~${RUNS} hostile messages: no throw, malformed ones kept for the DLQ, nothing changed`,
    async () => {
      const { queueUrl, dlqUrl } = worker.queue();
      const before = await stackState(stack);
      const malformed: string[] = [];
      const inFlight: string[] = [];
      let sent = 0;
      const started = Date.now();
      const property = fc.asyncProperty(
        fc.array(bodiesFor(worker), { minLength: 1, maxLength: BATCH }),
        async (batch) => {
          for (const body of batch) {
            await stack.sqs.client.send(
              new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body.text }),
            );
          }
          sent += batch.length;
          const { event, response } = await invokeOnce(worker, queueUrl);
          expect(event.Records).toHaveLength(batch.length);
          const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
          for (const record of event.Records) {
            const where = `${name} ← ${JSON.stringify(record.body.slice(0, 200))}`;
            // A body that is not a message must stay on the queue; a well-formed one about nothing is acknowledged.
            expect(failed.has(record.messageId), where).toBe(isMalformed(worker, record.body));
            if (failed.has(record.messageId)) {
              malformed.push(record.body);
              inFlight.push(record.receiptHandle);
            }
          }
          expect(stack.sandbox.state.revision, "no gateway call changed anything").toBe(
            before.sandboxRevision,
          );
        },
      );
      await fc.assert(property, { numRuns: Math.ceil(RUNS / 5), seed: SEED });
      expect(malformed.length).toBeGreaterThan(0);
      expect(malformed.length).toBeLessThan(sent);

      // Every malformed message comes back after its visibility timeout, fails again, and after maxReceiveCount
      // receives the redrive policy moves it to the DLQ: nothing is dropped.
      let handles = inFlight;
      for (let receive = 2; receive <= MAX_RECEIVE_COUNT + 1 && handles.length > 0; receive++) {
        await expireVisibility(queueUrl, handles);
        handles = [];
        for (;;) {
          const { event, response } = await invokeOnce(worker, queueUrl);
          if (event.Records.length === 0) break;
          expect(response.batchItemFailures).toHaveLength(event.Records.length);
          handles.push(...event.Records.map((record) => record.receiptHandle));
        }
      }
      expect(await approximateMessageCount(stack.sqs.client, queueUrl)).toBe(0);
      const dead = await drainQueue(stack.sqs.client, dlqUrl);
      expect(dead.map((record) => record.body).sort()).toEqual(malformed.toSorted());
      const after = await stackState(stack);
      expect(after.items).toEqual(before.items);
      expect(after.sandboxRevision).toBe(before.sandboxRevision);
      stats.push(
        `${name.padEnd(16)} ${String(sent).padStart(5)} messages  malformed → DLQ ${String(malformed.length).padStart(5)}  ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    },
    HANDLER_TIMEOUT_MS,
  );
});

it("logged no card data or secret while failing", () => {
  const logs = output.text();
  expect(logs).toContain("malformed");
  const secrets = leakSecretsOf(TEST_MERCHANT, { merchantApiKeys: [], cvcs: ["123"] });
  expect(scanForLeaks(outputSources(logs), secrets).slice(0, 10)).toEqual([]);
});
