import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import * as z from "zod";
import {
  processSqsRecords,
  type SqsBatchOutcome,
  type SqsRecord,
  type SqsWorkOptions,
} from "../../lambda/sqs-work-results";
import { lazySchema } from "../../shared/lazy-schema";

// What the Lambda event source mapping does, for local mode and tests: receive a batch as Lambda-shaped records,
// hand them to processSqsRecords, delete the ones that did not fail.

const receivedMessageSchema = lazySchema(() =>
  z
    .object({
      MessageId: z.string(),
      ReceiptHandle: z.string(),
      Body: z.string(),
      Attributes: z.looseObject({ ApproximateReceiveCount: z.string() }),
    })
    .transform(
      (message): SqsRecord => ({
        messageId: message.MessageId,
        receiptHandle: message.ReceiptHandle,
        body: message.Body,
        attributes: message.Attributes,
      }),
    ),
);

/** Receives up to `maxMessages` (≤ 10) messages, long-polling up to `waitSeconds`. */
export async function receiveBatch(
  client: SQSClient,
  queueUrl: string,
  maxMessages = 10,
  waitSeconds = 0,
): Promise<SqsRecord[]> {
  const reply = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: maxMessages,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ["ApproximateReceiveCount", "SentTimestamp"],
      // The deprecated name too: local-aws-sqs reads only this one ("All": the type admits no message attribute).
      AttributeNames: ["All"],
    }),
  );
  return z.array(receivedMessageSchema).parse(reply.Messages ?? [], { reportInput: false });
}

/** Deletes the records not listed as batch item failures; returns the ids SQS failed to delete. */
export async function deleteBatch(
  client: SQSClient,
  queueUrl: string,
  records: readonly SqsRecord[],
  batchItemFailures: SqsBatchOutcome["batchItemFailures"] = [],
): Promise<string[]> {
  const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
  const done = records.filter((record) => !failed.has(record.messageId));
  const notDeleted: string[] = [];
  // DeleteMessageBatch takes at most 10 entries; entry ids are positions within the request.
  for (let start = 0; start < done.length; start += 10) {
    const chunk = done.slice(start, start + 10);
    const entries = chunk.map((record, index) => ({
      Id: String(index),
      ReceiptHandle: record.receiptHandle,
    }));
    const reply = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    for (const entry of reply.Failed ?? []) notDeleted.push(chunk[Number(entry.Id)]?.messageId ?? "unknown");
  }
  return notDeleted;
}

export interface PollOutcome extends SqsBatchOutcome {
  /** Records that succeeded but could not be deleted: they will be redelivered (handlers are idempotent). */
  readonly notDeleted: readonly string[];
}

/** One poll of the queue: receive → process → delete the successes. */
export async function pollOnce<M>(
  options: SqsWorkOptions<M> & { readonly maxMessages?: number; readonly waitSeconds?: number },
): Promise<PollOutcome> {
  const { client, queueUrl } = options;
  const records = await receiveBatch(client, queueUrl, options.maxMessages, options.waitSeconds);
  const outcome = await processSqsRecords(records, options);
  const notDeleted = await deleteBatch(client, queueUrl, records, outcome.batchItemFailures);
  return { ...outcome, notDeleted };
}
