import type { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

export interface RequestCounter {
  /** Requests sent since the last take, by command name; resets the tally. */
  take(): Record<string, number>;
}

const STEP = { step: "deserialize", name: "testRequestCounter" } as const;

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

/** Counts the requests of the SQS client by command name (SendMessageBatchCommand…). */
export function countSqsRequests(client: SQSClient): RequestCounter {
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
