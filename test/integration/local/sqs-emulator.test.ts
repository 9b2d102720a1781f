import { SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approximateMessageCount, type LocalSqs, startSqs } from "../../../local/sqs-emulator";

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startSqs();
});

afterAll(async () => {
  await sqs.close();
});

describe("approximateMessageCount on local-aws-sqs", () => {
  // The emulator holds a message sent without delay in its delay for one timer tick: a count asked for right after
  // the send must still include it (a drain that read 0 there would stop with a message left).
  it("counts every message sent, however soon after the send it is asked", async () => {
    const { queueUrl } = await sqs.createQueueWithDlq(`count-${Date.now()}`, {
      maxReceiveCount: 3,
      visibilityTimeout: 30,
    });
    const counts: number[] = [];
    for (let batch = 1; batch <= 200; batch += 1) {
      const entries = Array.from({ length: 10 }, (_, n) => ({ Id: `m${n}`, MessageBody: `${batch}-${n}` }));
      await sqs.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      counts.push(await approximateMessageCount(sqs.client, queueUrl));
    }
    expect(counts).toEqual(Array.from({ length: 200 }, (_, n) => (n + 1) * 10));
  });
});
