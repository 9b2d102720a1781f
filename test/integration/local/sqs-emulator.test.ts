import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiveBatch } from "../../../functions/adapters/aws/sqs-poller";
import { approximateMessageCount, type LocalSqs, startSqs } from "../../../local/aws/sqs-emulator";
import { SandboxClock } from "../../../sandbox/time/clock";

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

describe("a queue whose visibility timeouts run on a clock (the webhook delivery queue)", () => {
  it("hides a message until the clock passes its timeout, however much real time passes, and counts no extra receive", async () => {
    const clock = new SandboxClock({ start: new Date("2027-01-01T00:00:00Z") });
    const { queueUrl } = await sqs.createQueueWithDlq(`clocked-${Date.now()}`, {
      maxReceiveCount: 5,
      visibilityTimeout: 30,
      clock,
    });
    await sqs.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: "retry me" }));
    const hide = async (seconds: number) => {
      const [record] = await receiveBatch(sqs.client, queueUrl);
      if (record === undefined) throw new Error("nothing received");
      await sqs.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
      return record;
    };
    // A visibility of 1 s, in real time, would have run out here.
    expect((await hide(1)).attributes.ApproximateReceiveCount).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await receiveBatch(sqs.client, queueUrl)).toEqual([]);
    await clock.advance(999);
    expect(await receiveBatch(sqs.client, queueUrl)).toEqual([]);
    await clock.advance(1);
    // Hidden again, for an hour of the clock this time: a day's jump brings it back.
    expect((await hide(3600)).attributes.ApproximateReceiveCount).toBe("2");
    await clock.advance("PT59M");
    expect(await receiveBatch(sqs.client, queueUrl)).toEqual([]);
    await clock.advance("P1D");
    const [back] = await receiveBatch(sqs.client, queueUrl);
    expect(back?.body).toBe("retry me");
    expect(back?.attributes.ApproximateReceiveCount).toBe("3");
  });
});
