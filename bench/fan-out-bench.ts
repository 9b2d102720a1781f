import { setTimeout as sleep } from "node:timers/promises";
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { dynamoDbDocumentClientOf } from "../functions/adapters/aws/dynamodb-client";
import { sqsClientOf } from "../functions/adapters/aws/sqs-client";
import { DEFAULT_SHARDS, dueKeys, subscriptionKey } from "../functions/adapters/table/billing-table";
import { mapConcurrently } from "../functions/shared/map-concurrently";
import { countDynamoRequests, countSqsRequests, dynamoKinds } from "../local/aws/sdk-request-counter";
import { approximateMessageCount } from "../local/aws/sqs-emulator";
import { BillingStack } from "../local/stack/billing-stack";
import type { Benchmark, BenchRow } from "./benchmark";

// P4: the charge run's fan-out: time to find N due subscriptions in the due index and enqueue one message
// each (run-charges invoked as its schedule invokes it: Query pages of the 16 shards side by side,
// SendMessageBatch), counting its DynamoDB requests to show it reads the index and never scans. Seeding
// writes only what the index needs (the subscription's key, subscription_id, period and due keys) with
// BatchWriteItem in parallel, timed apart. Knob: BENCH_FANOUT (100,000).

const START = new Date("2027-03-01T09:00:00.000Z");
const SEED_BATCH = 25;
const SEED_CONCURRENCY = 16;
const MAX_SECONDS_PER_100K = 30;
const REFERENCE = 100_000;

/** How often the charge queue's depth is read while the run is in flight. */
const PROGRESS_POLL_MS = 250;

const subscriptionId = (n: number) => `sub_fanout_${String(n).padStart(7, "0")}`;

/** Reports progress on stderr each time `done` passes another 10,000. */
function progress(what: string, of: number): (done: number) => void {
  let reported = 0;
  return (done) => {
    if (Math.floor(done / 10_000) <= Math.floor(reported / 10_000)) return;
    reported = done;
    console.error(`  ${what} ${done}/${of}`);
  };
}

async function seed(stack: BillingStack, tableName: string, count: number): Promise<void> {
  const batches = Array.from({ length: Math.ceil(count / SEED_BATCH) }, (_, b) =>
    Array.from({ length: Math.min(SEED_BATCH, count - b * SEED_BATCH) }, (_, i) => b * SEED_BATCH + i),
  );
  let written = 0;
  const report = progress("seeded", count);
  await mapConcurrently(batches, SEED_CONCURRENCY, async (batch) => {
    let requests: { PutRequest: { Item: Record<string, unknown> } }[] = batch.map((n) => {
      const id = subscriptionId(n);
      // Due within the hour after START, spread over the seconds.
      const due = new Date(START.getTime() + (n % 3_600) * 1_000).toISOString();
      const item = {
        ...subscriptionKey(id),
        subscription_id: id,
        period: 1,
        ...dueKeys(id, due, due, DEFAULT_SHARDS),
      };
      return { PutRequest: { Item: item } };
    });
    while (requests.length > 0) {
      const reply = await stack.dynamo.client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
      );
      requests = (reply.UnprocessedItems?.[tableName] ?? []).flatMap((request) =>
        request.PutRequest?.Item === undefined ? [] : [{ PutRequest: { Item: request.PutRequest.Item } }],
      );
    }
    written += batch.length;
    report(written);
  });
}

/**
 * Reports the charge queue's depth until stopped, and once more then: the handler says nothing until the run
 * has finished, so its progress is read from outside, with a client of its own that the request counts leave
 * out.
 */
function watchQueueDepth(stack: BillingStack, onDepth: (depth: number) => void): { stop(): Promise<void> } {
  const client = stack.sqs.createClient();
  const stopped = new AbortController();
  const report = async () => onDepth(await approximateMessageCount(client, stack.chargeQueue.queueUrl));
  const polling = (async () => {
    while (!stopped.signal.aborted) {
      await report();
      await sleep(PROGRESS_POLL_MS, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      stopped.abort();
      await polling;
      await report();
    },
  };
}

/** run-charges invoked as its schedule invokes it, timed; its progress reported from the queue's depth. */
async function timedChargeRun(stack: BillingStack, size: number) {
  const watcher = watchQueueDepth(stack, progress("on the queue", size));
  try {
    const started = performance.now();
    const report = await stack.chargeRun();
    return { report, seconds: (performance.now() - started) / 1000 };
  } finally {
    await watcher.stop();
  }
}

export function fanOutBenchmark(options: { readonly subscriptions: number }): Benchmark {
  const size = options.subscriptions;
  const targetSeconds = (MAX_SECONDS_PER_100K * size) / REFERENCE;
  return {
    name: "fan-out",
    description: `charge run over ${size.toLocaleString("en-US")} due subscriptions: due-index Query pages → SendMessageBatch (BillingStack, dynalite + local-aws-sqs)`,
    async run(): Promise<BenchRow[]> {
      const stack = await BillingStack.start({ start: START });
      try {
        const tableName = stack.variables().TABLE_NAME ?? "";
        const started = performance.now();
        await seed(stack, tableName, size);
        const seedSeconds = (performance.now() - started) / 1000;
        await stack.clock.set(new Date(START.getTime() + 2 * 3_600_000));
        const dynamo = countDynamoRequests(dynamoDbDocumentClientOf(stack.runtime));
        const sqs = countSqsRequests(sqsClientOf(stack.runtime));
        const { report, seconds } = await timedChargeRun(stack, size);
        const kinds = dynamoKinds(dynamo.take());
        const sends = sqs.take().SendMessageBatchCommand ?? 0;
        const queued = await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl);
        const complete = report.enqueued === size && queued === size;
        const extrapolated = (seconds * REFERENCE) / size;
        return [
          {
            case: `seed ${size.toLocaleString("en-US")} due-index items (BatchWriteItem × ${SEED_CONCURRENCY})`,
            metrics: {
              items: size,
              seconds: Number(seedSeconds.toFixed(2)),
              itemsPerSec: Math.round(size / seedSeconds),
            },
            result: `${seedSeconds.toFixed(1)} s (${Math.round(size / seedSeconds)} items/s), not part of the run`,
            target: "",
          },
          {
            case: `find and enqueue ${size.toLocaleString("en-US")} due subscriptions`,
            metrics: {
              due: size,
              enqueued: report.enqueued,
              queued,
              seconds: Number(seconds.toFixed(2)),
              perSec: Math.round(size / seconds),
              secondsPer100k: Number(extrapolated.toFixed(2)),
              queries: kinds.queries,
              scans: kinds.scans,
              dynamoReads: kinds.reads,
              dynamoWrites: kinds.writes,
              sendMessageBatch: sends,
              pages: report.pages,
            },
            result:
              `${seconds.toFixed(1)} s (${Math.round(size / seconds)}/s${size === REFERENCE ? "" : `, ${extrapolated.toFixed(1)} s per 100,000 extrapolated linearly`}), ` +
              `${report.enqueued} enqueued / ${queued} on the queue; ${kinds.queries} Query, ${kinds.scans} Scan, ` +
              `${sends} SendMessageBatch`,
            target: `<= ${Number(targetSeconds.toFixed(2))} s (30 s per 100,000), 0 Scan, all enqueued`,
            met: seconds <= targetSeconds && kinds.scans === 0 && complete,
          },
        ];
      } finally {
        await stack.close();
      }
    },
  };
}
