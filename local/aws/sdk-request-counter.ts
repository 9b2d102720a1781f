import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { z } from "zod";
import { indexWriteUnits } from "./index-write-units";

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

export interface IndexWriteMeter {
  /** Index write units since the last take, by index name; resets the tally. */
  take(): Readonly<Record<string, number>>;
}

const keyValue = z.union([z.string(), z.object({ S: z.string() }).transform((value) => value.S)]);
const itemKey = z.object({ pk: keyValue, sk: keyValue });
type ItemKey = z.infer<typeof itemKey>;
const keyedWrite = z.union([
  z.object({ Key: itemKey }).transform(({ Key }) => Key),
  z.object({ Item: itemKey }).transform(({ Item }) => Item),
]);
const singleWrite = z.object({ TableName: z.string() }).and(keyedWrite);
const batchWrite = z.object({
  RequestItems: z.record(
    z.string(),
    z.array(
      z.union([
        z.object({ PutRequest: keyedWrite }).transform(({ PutRequest }) => PutRequest),
        z.object({ DeleteRequest: keyedWrite }).transform(({ DeleteRequest }) => DeleteRequest),
      ]),
    ),
  ),
});

/** The keys of the items a write command writes in `tableName` (none for other commands and tables). */
function writtenKeys(
  commandName: string | undefined,
  input: unknown,
  tableName: string | undefined,
): ItemKey[] {
  if (/^(Put|Update|Delete)ItemCommand$/.test(commandName ?? "")) {
    const write = singleWrite.safeParse(input);
    return write.success && write.data.TableName === tableName
      ? [{ pk: write.data.pk, sk: write.data.sk }]
      : [];
  }
  if (commandName === "BatchWriteItemCommand") {
    const batch = batchWrite.safeParse(input);
    return batch.success ? (batch.data.RequestItems[tableName ?? ""] ?? []) : [];
  }
  return [];
}

/**
 * The index write units of every item write (PutItem, UpdateItem, DeleteItem, BatchWriteItem) the client sends to
 * `table`, from the item as `observer` (another client, not metered) reads it just before and just after the write.
 * Writes to one item are metered one at a time so that the two reads frame exactly that write. The clients of one
 * DynamoDBDocumentClient share a middleware stack, so the plain client's writes are metered too.
 */
export function meterIndexWrites(
  client: DynamoDBDocumentClient,
  table: CreateTableCommandInput,
  observer: DynamoDBDocumentClient,
): IndexWriteMeter {
  const indexes = table.GlobalSecondaryIndexes ?? [];
  const tableKeys = (table.KeySchema ?? []).map((key) => key.AttributeName ?? "");
  let units: Record<string, number> = {};
  const inFlight = new Map<string, Promise<unknown>>();
  const idOf = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;
  const read = async (key: ItemKey) =>
    (await observer.send(new GetCommand({ TableName: table.TableName, Key: key, ConsistentRead: true })))
      .Item;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const keys = writtenKeys(context.commandName, args.input, table.TableName);
      if (keys.length === 0) return next(args);
      const previous = keys.map((key) => inFlight.get(idOf(key)) ?? Promise.resolve());
      const metered = Promise.all(previous).then(async () => {
        const before = await Promise.all(keys.map(read));
        try {
          return await next(args);
        } finally {
          const after = await Promise.all(keys.map(read));
          keys.forEach((_, n) => {
            for (const [name, count] of Object.entries(
              indexWriteUnits(indexes, tableKeys, before[n], after[n]),
            ))
              units[name] = (units[name] ?? 0) + count;
          });
        }
      });
      const settled = metered.catch(() => undefined);
      for (const key of keys) inFlight.set(idOf(key), settled);
      void settled.then(() => {
        for (const key of keys) if (inFlight.get(idOf(key)) === settled) inFlight.delete(idOf(key));
      });
      return metered;
    },
    { step: "initialize", name: "indexWriteMeter" },
  );
  return {
    take() {
      const taken = units;
      units = {};
      return taken;
    },
  };
}
