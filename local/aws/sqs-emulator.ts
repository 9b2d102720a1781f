import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { createRequestHandler } from "local-aws-sqs";
import type { SqsService } from "local-aws-sqs/dist/lib/sqsService";
import { createSqsClient } from "../../functions/adapters/aws/sqs-client";
import { receiveBatch } from "../../functions/adapters/aws/sqs-poller";
import type { SqsRecord } from "../../functions/lambda/sqs-work-results";
import { listenOnLoopback } from "./loopback-server";

export interface QueueWithDlq {
  readonly queueUrl: string;
  readonly dlqUrl: string;
}

/** A clock the queue's visibility timeouts may run on instead of real time (the stack's shared clock). */
export interface VisibilityClock {
  now(): Date;
  schedule(dueAt: Date, task: () => Promise<void>, label?: string): { cancel(): void };
}

export interface LocalSqs {
  /** e.g. http://127.0.0.1:54321 */
  readonly endpoint: string;
  /** A client of the emulator (fake credentials, us-east-1). */
  readonly client: SQSClient;
  /** Another client of the emulator, for tests that add middleware; destroyed by close(). */
  createClient(): SQSClient;
  /**
   * A queue `name` whose redrive policy moves a message to `name-dlq` after maxReceiveCount receives. With `clock`,
   * its visibility timeouts (a receive's, and a ChangeMessageVisibility's) are measured on that clock, not in real
   * time (see clockedVisibility).
   */
  createQueueWithDlq(
    name: string,
    options: {
      readonly maxReceiveCount: number;
      readonly visibilityTimeout: number;
      readonly clock?: VisibilityClock;
    },
  ): Promise<QueueWithDlq>;
  close(): Promise<void>;
}

/** local-aws-sqs in this process on 127.0.0.1 and an ephemeral port, with a client of it. */
export async function startSqs(): Promise<LocalSqs> {
  const { service, requestHandler } = createRequestHandler({
    port: 0,
    hostname: "127.0.0.1",
    // Tests reuse queue names across runs of one process; AWS's 60 s wait after a delete is not wanted here.
    emulateQueueCreationLifecycle: false,
  });
  const clocks = new Map<string, VisibilityClock>();
  const server = createServer((req, res) => {
    keepReceiveCountOnVisibilityChange(service, clocks);
    requestHandler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const listening = await listenOnLoopback(server, "the SQS emulator");
  // Queue URLs carry the port: the emulator learns it only from here (as its own createSqsServer does).
  service.PORT = listening.port;
  const { endpoint } = listening;
  const clients: SQSClient[] = [];
  const createClient = () => {
    const created = createSqsClient({
      endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    clients.push(created);
    return created;
  };
  const client = createClient();
  return {
    endpoint,
    client,
    createClient,
    async createQueueWithDlq(name, { maxReceiveCount, visibilityTimeout, clock }) {
      if (clock !== undefined) clocks.set(name, clock);
      const dlqUrl = await createQueue(client, `${name}-dlq`, {});
      const arn = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ["QueueArn"] }),
      );
      const deadLetterTargetArn = required(arn.Attributes?.QueueArn, "QueueArn");
      const queueUrl = await createQueue(client, name, {
        VisibilityTimeout: String(visibilityTimeout),
        RedrivePolicy: JSON.stringify({ maxReceiveCount, deadLetterTargetArn }),
      });
      return { queueUrl, dlqUrl };
    },
    close() {
      for (const created of clients) created.destroy();
      return listening.close();
    },
  };
}

async function createQueue(client: SQSClient, name: string, attributes: Record<string, string>) {
  const created = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  return required(created.QueueUrl, "QueueUrl");
}

function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new Error(`SQS emulator returned no ${what}`);
  return value;
}

/** Receives until the queue answers with no message; the records stay in flight (not deleted). */
export async function drainQueue(client: SQSClient, queueUrl: string): Promise<SqsRecord[]> {
  const records: SqsRecord[] = [];
  for (;;) {
    const batch = await receiveBatch(client, queueUrl);
    if (batch.length === 0) return records;
    records.push(...batch);
  }
}

/**
 * Every message the queue holds. local-aws-sqs counts every stored message in ApproximateNumberOfMessages, in flight
 * or not (SQS counts only the visible ones), except those still in their delay — and a message sent without one
 * still spends a timer tick in it, so one sent just before the count is in ApproximateNumberOfMessagesDelayed. The
 * sum is 0 only when there is nothing left to deliver, ever.
 */
export async function approximateMessageCount(client: SQSClient, queueUrl: string): Promise<number> {
  const reply = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed"],
    }),
  );
  const stored = Number(
    required(reply.Attributes?.ApproximateNumberOfMessages, "ApproximateNumberOfMessages"),
  );
  return stored + Number(reply.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
}

/**
 * Messages a receive would get now: local-aws-sqs counts in-flight ones in ApproximateNumberOfMessages, so they are
 * taken off. Cheaper than a receive that finds nothing, which local-aws-sqs answers only after ~40 ms.
 */
export async function visibleMessageCount(client: SQSClient, queueUrl: string): Promise<number> {
  const reply = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }),
  );
  const stored = Number(
    required(reply.Attributes?.ApproximateNumberOfMessages, "ApproximateNumberOfMessages"),
  );
  const inFlight = Number(reply.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  return Math.max(0, stored - inFlight);
}

export interface RecordedCommand {
  readonly name: string;
  readonly input: unknown;
}

/** The commands a client sends, in order (a middleware; the list grows as requests go out). */
export function recordCommands(client: SQSClient): RecordedCommand[] {
  const commands: RecordedCommand[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      commands.push({ name: context.commandName ?? "unknown", input: args.input });
      return next(args);
    },
    { step: "initialize", name: "recordCommands" },
  );
  return commands;
}

const patchedQueues = new WeakSet<object>();
let changingVisibility = false;

/**
 * local-aws-sqs 2.0.2 counts a ChangeMessageVisibility as one more receive (ApproximateReceiveCount + 1); SQS does
 * not. Left alone, a message retried through its visibility would reach the DLQ after half its receives and the
 * worker's backoff (which grows with the receive count) would skip steps. This keeps the count unchanged while a
 * visibility change runs; it patches each queue once, before the first request that could touch its messages.
 */
function keepReceiveCountOnVisibilityChange(
  service: SqsService,
  clocks: ReadonlyMap<string, VisibilityClock>,
): void {
  for (const queue of service.Queues) {
    if (patchedQueues.has(queue)) continue;
    patchedQueues.add(queue);
    const original = queue.changeVisibility.bind(queue);
    const changeVisibility: typeof original = (receiptHandle, visibilityTimeout) => {
      changingVisibility = true;
      try {
        return original(receiptHandle, visibilityTimeout);
      } finally {
        changingVisibility = false;
      }
    };
    const clock = clocks.get(queue.QueueName);
    queue.changeVisibility =
      clock === undefined ? changeVisibility : clockedVisibility(changeVisibility, clock);
    if (clock !== undefined) hideReceivedOnClock(queue);
    const newRecord = queue.newRecord;
    queue.newRecord = (record, delay) => {
      guardReceiveCount(record.attributes);
      return newRecord(record, delay);
    };
  }
}

/** Longer than any jump a test or a person makes while a message waits: only the clock makes it visible again. */
const HIDDEN_SECONDS = 43_200;

/** The message id a local-aws-sqs receipt handle names (base64 of a UUID and {date, MessageId, QueueName}). */
function messageIdOf(receiptHandle: string): string {
  const text = Buffer.from(receiptHandle, "base64").toString("utf8");
  try {
    const parsed: unknown = JSON.parse(text.slice(text.indexOf("{")));
    if (typeof parsed === "object" && parsed !== null && "MessageId" in parsed)
      return String(parsed.MessageId);
  } catch {
    // not one of the emulator's handles: the emulator answers it as SQS would
  }
  return receiptHandle;
}

/**
 * SQS measures a message's visibility timeout in real time; on a queue given a clock (the webhook delivery queue,
 * whose backoff runs for days) local mode measures it on the stack's clock instead: the message is hidden (for 12
 * real hours) and a task on the clock makes it visible when its timeout has passed there — so a clock jump of a day
 * brings every retry due within it back, each at its own time, and real time alone brings none back early. A later
 * change of the same message's visibility replaces its task; a message deleted meanwhile is simply not found.
 */
function clockedVisibility(
  changeVisibility: (receiptHandle: string, visibilityTimeout: string) => boolean,
  clock: VisibilityClock,
): (receiptHandle: string, visibilityTimeout: string) => boolean {
  const pending = new Map<string, { cancel(): void }>();
  return (receiptHandle, visibilityTimeout) => {
    const seconds = Number(visibilityTimeout);
    const messageId = messageIdOf(receiptHandle);
    pending.get(messageId)?.cancel();
    pending.delete(messageId);
    if (!(seconds > 0)) return changeVisibility(receiptHandle, visibilityTimeout);
    const found = changeVisibility(receiptHandle, String(HIDDEN_SECONDS));
    if (!found) return false;
    const dueAt = new Date(clock.now().getTime() + seconds * 1000);
    const task = clock.schedule(
      dueAt,
      async () => {
        pending.delete(messageId);
        try {
          changeVisibility(receiptHandle, "0");
        } catch {
          // deleted since, or moved to its DLQ: nothing to show
        }
        // The emulator makes it visible on its next timer tick; let that tick pass before the clock moves on.
        await sleep(2);
      },
      `visibility of ${messageId}`,
    );
    pending.set(messageId, task);
    return true;
  };
}

/**
 * On a queue given a clock, a received message's visibility timeout runs on that clock too: a consumer that dies
 * holding it (a crashed invocation deletes nothing and changes nothing) sees it come back when the timeout has passed
 * on the stack's clock, as on AWS after that much time, and not after real seconds while the clock jumps days.
 */
function hideReceivedOnClock(queue: SqsService["Queues"][number]): void {
  const receive = queue.receive.bind(queue);
  queue.receive = async (input: { readonly VisibilityTimeout?: unknown }) => {
    const records: { readonly ReceiptHandle: string }[] = await receive(input);
    const requested = Number(input.VisibilityTimeout);
    const seconds = Number.isFinite(requested) ? requested : queue.VisibilityTimeout;
    for (const record of records) queue.changeVisibility(record.ReceiptHandle, String(seconds));
    return records;
  };
}

function guardReceiveCount(attributes: unknown): void {
  if (typeof attributes !== "object" || attributes === null || !("ApproximateReceiveCount" in attributes)) {
    throw new Error("local-aws-sqs changed its record shape: revisit keepReceiveCountOnVisibilityChange");
  }
  let count = attributes.ApproximateReceiveCount;
  Object.defineProperty(attributes, "ApproximateReceiveCount", {
    enumerable: true,
    get: () => count,
    set: (value: unknown) => {
      if (!changingVisibility) count = value;
    },
  });
}
