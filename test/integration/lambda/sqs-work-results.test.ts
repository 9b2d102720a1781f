import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqsChargeQueue } from "../../../functions/adapters/aws/sqs-charge-queue";
import { pollOnce, receiveBatch } from "../../../functions/adapters/aws/sqs-poller";
import type { WorkResult } from "../../../functions/core/base/work-result";
import type { ChargeMessage } from "../../../functions/core/ports/queues";
import { parseChargeMessage } from "../../../functions/core/ports/queues";
import { processSqsRecords } from "../../../functions/lambda/sqs-work-results";
import {
  approximateMessageCount,
  drainQueue,
  type LocalSqs,
  recordCommands,
  startSqs,
} from "../../../local/aws/sqs-emulator";

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startSqs();
});
afterAll(() => sqs.close());

/** A fresh queue (visibility 1 s) whose DLQ takes a message after `maxReceiveCount` receives. */
async function queueWith(maxReceiveCount: number) {
  return sqs.createQueueWithDlq(`rebill-${randomUUID()}`, { maxReceiveCount, visibilityTimeout: 1 });
}

async function enqueue(queueUrl: string, ...subscriptionIds: string[]): Promise<void> {
  const messages = subscriptionIds.map((subscription_id) => ({ subscription_id, period: 1 }));
  await createSqsChargeQueue({ client: sqs.client, queueUrl }).send(messages);
}

type Handler = (message: ChargeMessage, receiveCount: number) => Promise<WorkResult>;

/** A handler that records what it was given and answers `answer`. */
function recordingHandler(answer: Handler) {
  const calls: { subscription_id: string; receiveCount: number }[] = [];
  const handler: Handler = (message, receiveCount) => {
    calls.push({ subscription_id: message.subscription_id, receiveCount });
    return answer(message, receiveCount);
  };
  return { calls, handler };
}

const done = async (): Promise<WorkResult> => ({ kind: "done", note: "charged" });
const retryAfter = (delaySeconds: number) => async (): Promise<WorkResult> => ({
  kind: "retry",
  delaySeconds,
  note: "gateway unavailable",
});

function poll(queueUrl: string, handler: Handler) {
  return pollOnce({ client: sqs.client, queueUrl, parse: parseChargeMessage, handler });
}

describe("processSqsRecords through a local poller", () => {
  it("done → acknowledged and deleted", async () => {
    const { queueUrl } = await queueWith(3);
    await enqueue(queueUrl, "sub_done");
    const { calls, handler } = recordingHandler(done);

    const outcome = await poll(queueUrl, handler);

    expect(calls).toEqual([{ subscription_id: "sub_done", receiveCount: 1 }]);
    expect(outcome.batchItemFailures).toEqual([]);
    expect(outcome.results).toEqual([expect.objectContaining({ kind: "done", note: "charged" })]);
    expect(outcome.notDeleted).toEqual([]);
    expect(await approximateMessageCount(sqs.client, queueUrl)).toBe(0);
  });

  it("retry → stays hidden for its delay (longer than the queue's 1 s), then returns with the next receive count", async () => {
    const { queueUrl } = await queueWith(3);
    await enqueue(queueUrl, "sub_retry");
    const { calls, handler } = recordingHandler(retryAfter(2));

    const first = await poll(queueUrl, handler);
    const [result] = first.results;
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: result?.messageId }]);
    expect(result).toMatchObject({ kind: "retry", delaySeconds: 2 });

    expect(await receiveBatch(sqs.client, queueUrl)).toEqual([]);
    await sleep(1300); // past the queue's own visibility timeout, short of the retry's
    expect(await receiveBatch(sqs.client, queueUrl)).toEqual([]);
    await sleep(1200);
    const again = recordingHandler(done);
    const second = await poll(queueUrl, again.handler);

    expect(second.results).toEqual([expect.objectContaining({ messageId: result?.messageId, kind: "done" })]);
    expect(calls).toEqual([{ subscription_id: "sub_retry", receiveCount: 1 }]);
    expect(again.calls).toEqual([{ subscription_id: "sub_retry", receiveCount: 2 }]);
    expect(await approximateMessageCount(sqs.client, queueUrl)).toBe(0);
  });

  it("a message retried on every receive reaches the DLQ after maxReceiveCount receives", async () => {
    const { queueUrl, dlqUrl } = await queueWith(2);
    await enqueue(queueUrl, "sub_flaky");
    const { calls, handler } = recordingHandler(retryAfter(1));

    await poll(queueUrl, handler);
    await sleep(1500);
    await poll(queueUrl, handler);
    await sleep(1500);
    const afterLast = await poll(queueUrl, handler);

    expect(calls).toEqual([
      { subscription_id: "sub_flaky", receiveCount: 1 },
      { subscription_id: "sub_flaky", receiveCount: 2 },
    ]);
    expect(afterLast.results).toEqual([]);
    const dead = await drainQueue(sqs.client, dlqUrl);
    expect(dead.map((record) => parseChargeMessage(record.body))).toEqual([
      { subscription_id: "sub_flaky", period: 1 },
    ]);
  });

  it("a thrown handler error → batch item failure, redelivered after the queue's visibility timeout", async () => {
    const { queueUrl } = await queueWith(3);
    await enqueue(queueUrl, "sub_throws");
    const failure = new Error("table unavailable");
    const { calls, handler } = recordingHandler(() => Promise.reject(failure));

    const first = await poll(queueUrl, handler);
    await sleep(1500);
    await poll(queueUrl, handler);

    const [result] = first.results;
    expect(result).toEqual({ messageId: result?.messageId, kind: "error", error: failure });
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: result?.messageId }]);
    expect(calls.map((call) => call.receiveCount)).toEqual([1, 2]);
  });

  it("a malformed body → batch item failure with the reason, the handler never called", async () => {
    const { queueUrl } = await queueWith(3);
    await sqs.client.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"subscription_id":"s"}' }),
    );
    const { calls, handler } = recordingHandler(done);

    const outcome = await poll(queueUrl, handler);

    expect(calls).toEqual([]);
    const [result] = outcome.results;
    expect(result).toMatchObject({ kind: "malformed", reason: expect.stringContaining("period") });
    expect(outcome.batchItemFailures).toEqual([{ itemIdentifier: result?.messageId }]);
    expect(await approximateMessageCount(sqs.client, queueUrl)).toBe(1);
  });

  it("maps each record of a mixed batch on its own", async () => {
    const { queueUrl } = await queueWith(3);
    await enqueue(queueUrl, "sub_a_done", "sub_b_retry", "sub_c_throws", "sub_d_done");
    const answers: Record<string, Handler> = {
      sub_b_retry: retryAfter(30),
      sub_c_throws: () => Promise.reject(new Error("boom")),
    };
    const { handler } = recordingHandler((message, count) =>
      (answers[message.subscription_id] ?? done)(message, count),
    );

    const outcome = await poll(queueUrl, handler);

    const byId = new Map(outcome.results.map((result) => [result.messageId, result.kind]));
    expect([...byId.values()].sort()).toEqual(["done", "done", "error", "retry"]);
    expect(outcome.batchItemFailures.map((failure) => byId.get(failure.itemIdentifier)).sort()).toEqual([
      "error",
      "retry",
    ]);
    expect(await approximateMessageCount(sqs.client, queueUrl)).toBe(2);
  });
});

describe("processSqsRecords", () => {
  /** The VisibilityTimeout sent for a retry of `requested` seconds, and the result reported. */
  async function retryWith(requested: number) {
    const { queueUrl } = await queueWith(3);
    await enqueue(queueUrl, "sub_delay");
    const client = sqs.createClient();
    const commands = recordCommands(client);
    const records = await receiveBatch(client, queueUrl);
    const outcome = await processSqsRecords(records, {
      client,
      queueUrl,
      parse: parseChargeMessage,
      handler: retryAfter(requested),
    });
    return { sent: commands.at(-1), result: outcome.results[0] };
  }

  it.each([
    [0.2, 1],
    [2.5, 3],
    [86_400, 900],
  ])("keeps a retry delay of %s s within 1…900 s (→ %s)", async (requested, applied) => {
    const { sent, result } = await retryWith(requested);
    expect(sent).toMatchObject({
      name: "ChangeMessageVisibilityCommand",
      input: { QueueUrl: expect.any(String), VisibilityTimeout: applied },
    });
    expect(result).toMatchObject({ kind: "retry", delaySeconds: applied });
  });

  it("rejects a batch whose records lack the fields Lambda always sends, before handling any", async () => {
    const { calls, handler } = recordingHandler(done);
    const records = [
      { messageId: "m1", receiptHandle: "r1", body: "{}", attributes: { ApproximateReceiveCount: "x" } },
    ];

    await expect(
      processSqsRecords(records, {
        client: sqs.client,
        queueUrl: "unused",
        parse: parseChargeMessage,
        handler,
      }),
    ).rejects.toThrow(/ApproximateReceiveCount/);
    expect(calls).toEqual([]);
  });
});
