import type { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { z } from "zod";

export interface RequestCounter {
  /** Requests sent since the last take, by command name; resets the tally. */
  take(): Record<string, number>;
}

const STEP = { step: "deserialize", name: "sdkRequestCounter" } as const;

function tally() {
  let counts: Record<string, number> = {};
  return {
    record(name = "unknown") {
      counts[name] = (counts[name] ?? 0) + 1;
    },
    take() {
      const taken = counts;
      counts = {};
      return taken;
    },
  };
}

// A middleware at the deserialize step runs once per HTTP request sent, SDK retries included. The two clients'
// middleware stacks have unrelated input types, hence one small function each.

/**
 * Counts the requests of the SQS client by command name (SendMessageBatchCommand…); with `queueUrl`, only those
 * naming that queue (a client shared by several pollers).
 */
export function countSqsRequests(client: SQSClient, queueUrl?: string): RequestCounter {
  const counts = tally();
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (queueUrl === undefined || ("QueueUrl" in args.input && args.input.QueueUrl === queueUrl))
        counts.record(context.commandName);
      return next(args);
    },
    { ...STEP, name: `${STEP.name}${queueUrl ?? ""}` },
  );
  return counts;
}

/** Counts the requests of a DynamoDB document client by command name (the low-level names: PutItemCommand…). */
export function countDynamoRequests(client: DynamoDBDocumentClient): RequestCounter {
  const counts = tally();
  client.middlewareStack.add(
    (next, context) => (args) => {
      counts.record(context.commandName);
      return next(args);
    },
    STEP,
  );
  return counts;
}

const DYNAMO_WRITE = /^(Put|Update|Delete|BatchWrite|TransactWrite)(Item)?Command$/;
const DYNAMO_READ = /^(Get|BatchGet|TransactGet)(Item)?Command$|^QueryCommand$/;

/** DynamoDB requests by kind: writes (Put/Update/Delete…), reads (GetItem/Query…), Scans, anything else. */
export function dynamoKinds(counts: Readonly<Record<string, number>>) {
  const sum = (test: (name: string) => boolean) =>
    Object.entries(counts).reduce((total, [name, count]) => total + (test(name) ? count : 0), 0);
  return {
    writes: sum((name) => DYNAMO_WRITE.test(name)),
    reads: sum((name) => DYNAMO_READ.test(name)),
    queries: counts.QueryCommand ?? 0,
    scans: sum((name) => name === "ScanCommand"),
    other: sum((name) => !DYNAMO_WRITE.test(name) && !DYNAMO_READ.test(name) && name !== "ScanCommand"),
  };
}

export function total(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

export interface CapacityMeter {
  /** Capacity units consumed since the last take (read and write), as DynamoDB reports them; resets the tally. */
  take(): { readonly read: number; readonly write: number };
}

const consumed = z.object({ CapacityUnits: z.number().optional() });
const capacityOutput = z.object({ ConsumedCapacity: z.union([consumed, z.array(consumed)]).optional() });

/**
 * Asks for ReturnConsumedCapacity TOTAL on every request of a DynamoDB document client and adds up what comes back.
 * dynalite reports the table's units by item size (not the indexes'), the way on-demand bills the table.
 */
export function meterDynamoCapacity(client: DynamoDBDocumentClient): CapacityMeter {
  let units = { read: 0, write: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input;
      if (typeof input === "object" && input !== null && !("ReturnConsumedCapacity" in input))
        Object.assign(input, { ReturnConsumedCapacity: "TOTAL" });
      const result = await next(args);
      const parsed = capacityOutput.safeParse(result.output);
      const reported = parsed.success ? [parsed.data.ConsumedCapacity ?? []].flat() : [];
      const sum = reported.reduce((total, entry) => total + (entry.CapacityUnits ?? 0), 0);
      if (DYNAMO_WRITE.test(context.commandName ?? "")) units.write += sum;
      else units.read += sum;
      return result;
    },
    { step: "initialize", name: "capacityMeter" },
  );
  return {
    take() {
      const taken = units;
      units = { read: 0, write: 0 };
      return taken;
    },
  };
}
