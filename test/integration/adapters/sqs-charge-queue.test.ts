import { randomUUID } from "node:crypto";
import type {
  SendMessageBatchCommandInput,
  SendMessageBatchCommandOutput,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChargeQueueSendError, createSqsChargeQueue } from "../../../functions/adapters/aws/sqs-charge-queue";
import type { ChargeMessage } from "../../../functions/core/ports/queues";
import { MalformedMessageError, parseChargeMessage } from "../../../functions/core/ports/queues";
import {
  approximateMessageCount,
  drainQueue,
  type LocalSqs,
  type RecordedCommand,
  recordCommands,
  startSqs,
} from "../../../local/aws/sqs-emulator";

let sqs: LocalSqs;
let commands: RecordedCommand[];

beforeAll(async () => {
  sqs = await startSqs();
  commands = recordCommands(sqs.client);
});
afterAll(() => sqs.close());
beforeEach(() => {
  commands.length = 0;
});

async function newQueue(): Promise<string> {
  const { queueUrl } = await sqs.createQueueWithDlq(`charges-${randomUUID()}`, {
    maxReceiveCount: 3,
    visibilityTimeout: 30,
  });
  commands.length = 0;
  return queueUrl;
}

function dueMessages(count: number): ChargeMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    subscription_id: `sub_${index}`,
    period: index % 4,
  }));
}

async function receivedMessages(client: SQSClient, queueUrl: string): Promise<ChargeMessage[]> {
  const records = await drainQueue(client, queueUrl);
  return records
    .map((record) => parseChargeMessage(record.body))
    .sort((a, b) => a.subscription_id.localeCompare(b.subscription_id));
}

function sorted(messages: ChargeMessage[]): ChargeMessage[] {
  return [...messages].sort((a, b) => a.subscription_id.localeCompare(b.subscription_id));
}

/**
 * A client whose SendMessageBatch calls do not send the entries `failFor` picks and report them as Failed (as SQS
 * does for entries it could not store), so a re-send is the only way they arrive.
 */
function failingClient(
  failFor: (call: number, entryId: string) => { code: string; senderFault: boolean } | undefined,
) {
  const client = sqs.createClient();
  const calls: SendMessageBatchCommandInput[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== "SendMessageBatchCommand") return next(args);
      const input = args.input as SendMessageBatchCommandInput;
      calls.push(input);
      const entries = input.Entries ?? [];
      const failures = entries.flatMap((entry) => {
        const failure = failFor(calls.length, entry.Id ?? "");
        return failure ? [{ Id: entry.Id, Code: failure.code, SenderFault: failure.senderFault }] : [];
      });
      const failedIds = new Set(failures.map((failure) => failure.Id));
      const sent = entries.filter((entry) => !failedIds.has(entry.Id));
      // SQS refuses an empty batch: when every entry fails, answer without sending.
      if (sent.length === 0)
        return { output: { Successful: [], Failed: failures, $metadata: {} }, response: {} };
      const result = await next({ ...args, input: { ...input, Entries: sent } });
      const output = result.output as SendMessageBatchCommandOutput;
      return { ...result, output: { ...output, Failed: [...(output.Failed ?? []), ...failures] } };
    },
    { step: "initialize", name: "failEntries" },
  );
  return { client, calls };
}

describe("createSqsChargeQueue", () => {
  it("sends 25 messages as 3 SendMessageBatch requests and each arrives once with its body", async () => {
    const queueUrl = await newQueue();
    const messages = dueMessages(25);

    await createSqsChargeQueue({ client: sqs.client, queueUrl }).send(messages);

    expect(commands.map((command) => command.name)).toEqual([
      "SendMessageBatchCommand",
      "SendMessageBatchCommand",
      "SendMessageBatchCommand",
    ]);
    expect(await receivedMessages(sqs.client, queueUrl)).toEqual(sorted(messages));
  });

  it("bodies hold the two ids only, even when the caller's object carries more", async () => {
    const queueUrl = await newQueue();
    const withExtra = { subscription_id: "sub_x", period: 2, card_number: "4111111111111111" };

    await createSqsChargeQueue({ client: sqs.client, queueUrl }).send([withExtra]);

    const [record] = await drainQueue(sqs.client, queueUrl);
    expect(record?.body).toBe('{"subscription_id":"sub_x","period":2}');
  });

  it("re-sends the entries a batch reports as Failed, and every message arrives once", async () => {
    const queueUrl = await newQueue();
    const { client, calls } = failingClient((call, id) =>
      call === 1 && (id === "3" || id === "7") ? { code: "InternalError", senderFault: false } : undefined,
    );
    const messages = dueMessages(10);

    await createSqsChargeQueue({ client, queueUrl, backoffMs: 1 }).send(messages);

    expect(calls.map((call) => call.Entries?.length)).toEqual([10, 2]);
    expect(await receivedMessages(sqs.client, queueUrl)).toEqual(sorted(messages));
  });

  it("after its bounded retries, throws how many messages were not accepted; the others are queued", async () => {
    const queueUrl = await newQueue();
    const { client, calls } = failingClient((_call, id) =>
      id === "4" ? { code: "InternalError", senderFault: false } : undefined,
    );
    const messages = dueMessages(12);

    const sending = createSqsChargeQueue({ client, queueUrl, maxAttempts: 3, backoffMs: 1 }).send(messages);

    await expect(sending).rejects.toThrow(new ChargeQueueSendError(1, 12, ["InternalError"]).message);
    await expect(sending).rejects.toMatchObject({ notAccepted: 1, total: 12 });
    // Two batches (10 + 2), then two re-sends of the failing entry of the first.
    expect(calls.map((call) => call.Entries?.length).sort()).toEqual([1, 1, 10, 2]);
    expect(await receivedMessages(sqs.client, queueUrl)).toHaveLength(11);
  });

  it("does not re-send an entry failed by the sender's fault", async () => {
    const queueUrl = await newQueue();
    const { client, calls } = failingClient((_call, id) =>
      id === "0" ? { code: "InvalidMessageContents", senderFault: true } : undefined,
    );

    const sending = createSqsChargeQueue({ client, queueUrl, backoffMs: 1 }).send(dueMessages(3));

    await expect(sending).rejects.toMatchObject({
      notAccepted: 1,
      total: 3,
      codes: ["InvalidMessageContents"],
    });
    expect(calls).toHaveLength(1);
  });

  it("refuses an invalid message before sending anything, naming the field", async () => {
    const queueUrl = await newQueue();
    const queue = createSqsChargeQueue({ client: sqs.client, queueUrl });

    const sending = queue.send([...dueMessages(11), { subscription_id: "sub_bad", period: -1 }]);

    await expect(sending).rejects.toThrow(MalformedMessageError);
    await expect(sending).rejects.toThrow(/period/);
    expect(commands).toEqual([]);
  });

  it("sends nothing for an empty run", async () => {
    const queueUrl = await newQueue();
    await createSqsChargeQueue({ client: sqs.client, queueUrl }).send([]);
    expect(commands).toEqual([]);
  });

  it("fans out 10,000 messages", { timeout: 120_000 }, async () => {
    const queueUrl = await newQueue();
    const messages = dueMessages(10_000);

    const started = performance.now();
    await createSqsChargeQueue({ client: sqs.client, queueUrl }).send(messages);
    const elapsedMs = performance.now() - started;

    console.info(
      `10,000 charge messages sent in ${(elapsedMs / 1000).toFixed(2)} s ` +
        `(${Math.round(10_000 / (elapsedMs / 1000))} msg/s, ${commands.length} requests, 4 in flight)`,
    );
    expect(commands).toHaveLength(1000);
    expect(await approximateMessageCount(sqs.client, queueUrl)).toBe(10_000);
  });
});

describe("parseChargeMessage", () => {
  it("parses a body and drops unknown keys", () => {
    expect(parseChargeMessage('{"subscription_id":"sub_1","period":3,"extra":true}')).toEqual({
      subscription_id: "sub_1",
      period: 3,
    });
  });

  it.each([
    ["not json", "(body)"],
    ['{"period":1}', "subscription_id"],
    ['{"subscription_id":"sub_1"}', "period"],
    ['{"subscription_id":"sub_1","period":"1"}', "period"],
    ['{"subscription_id":"sub_1","period":1.5}', "period"],
  ])("names the field of a malformed body %s", (body, field) => {
    expect(() => parseChargeMessage(body)).toThrow(expect.objectContaining({ field }));
  });

  it("never echoes the value", () => {
    const call = () => parseChargeMessage('{"subscription_id":4111111111111111,"period":1}');
    expect(call).toThrow(MalformedMessageError);
    expect(call).not.toThrow(/4111/);
  });
});
