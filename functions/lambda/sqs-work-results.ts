import { ChangeMessageVisibilityCommand, type SQSClient } from "@aws-sdk/client-sqs";
import * as z from "zod";
import type { WorkResult } from "../core/base/work-result";
import { lazySchema } from "../shared/lazy-schema";
import { mapConcurrently } from "../shared/map-concurrently";

/** The fields of a Lambda SQS event record this module reads (the event carries more; they are ignored). */
export const sqsRecordSchema = lazySchema(() =>
  z.object({
    messageId: z.string().min(1),
    receiptHandle: z.string().min(1),
    body: z.string(),
    attributes: z.object({
      ApproximateReceiveCount: z
        .string()
        .regex(/^[1-9]\d*$/, "must be a positive integer")
        .transform(Number),
    }),
  }),
);
export type SqsRecord = z.input<typeof sqsRecordSchema>;

/** The queue's backoff stays within 15 minutes (SQS itself would allow 12 hours). */
export const MAX_RETRY_DELAY_SECONDS = 900;

/** What became of one record, for the caller to log. */
export type RecordResult =
  | { readonly messageId: string; readonly kind: "done"; readonly note: string }
  | {
      readonly messageId: string;
      readonly kind: "retry";
      readonly delaySeconds: number;
      readonly note: string;
    }
  /** The body is not a message: it stays on the queue until the redrive policy moves it to the DLQ. */
  | { readonly messageId: string; readonly kind: "malformed"; readonly reason: string }
  /** The handler threw, or a retry's visibility could not be set: redelivered after the default visibility. */
  | { readonly messageId: string; readonly kind: "error"; readonly error: unknown };

/** Lambda's partial batch response (ReportBatchItemFailures): the listed messages stay on the queue. */
export interface SqsBatchOutcome {
  readonly batchItemFailures: { readonly itemIdentifier: string }[];
  readonly results: readonly RecordResult[];
}

/** A consumer's hold on its queue: what it needs to change a record's visibility. */
export interface QueueConsumer {
  readonly client: SQSClient;
  /** The queue the records came from (a Lambda's records name its ARN, ChangeMessageVisibility needs the URL). */
  readonly queueUrl: string;
}

export interface SqsWorkOptions<M> extends QueueConsumer {
  /** Turns a body into a message; throws on a malformed one (e.g. parseChargeMessage). */
  readonly parse: (body: string) => M;
  /** `messageId`: SQS's id of the message, the same on every receive. */
  readonly handler: (message: M, receiveCount: number, messageId: string) => Promise<WorkResult>;
  /** Records processed at once (default 10). */
  readonly concurrency?: number;
  /** The longest retry delay (default MAX_RETRY_DELAY_SECONDS; SQS allows up to 12 hours). */
  readonly maxDelaySeconds?: number;
}

/**
 * Processes the records of one SQS batch and maps each WorkResult to SQS: done → acknowledged (the caller or Lambda
 * deletes it); retry → its visibility is set to the requested delay and it is reported as a batch item failure, so
 * it comes back after the delay with a higher receive count (and reaches the DLQ after maxReceiveCount receives).
 */
export async function processSqsRecords<M>(
  records: readonly SqsRecord[],
  options: SqsWorkOptions<M>,
): Promise<SqsBatchOutcome> {
  // A record without these fields breaks Lambda's contract: fail the whole batch rather than guess.
  const parsed = z.array(sqsRecordSchema).parse(records, { reportInput: false });
  const results = await mapConcurrently(parsed, options.concurrency ?? 10, (record) =>
    processRecord(record, options),
  );
  return {
    batchItemFailures: results
      .filter((result) => result.kind !== "done")
      .map((result) => ({ itemIdentifier: result.messageId })),
    results,
  };
}

async function processRecord<M>(
  record: z.output<typeof sqsRecordSchema>,
  { client, queueUrl, parse, handler, maxDelaySeconds = MAX_RETRY_DELAY_SECONDS }: SqsWorkOptions<M>,
): Promise<RecordResult> {
  const { messageId } = record;
  let message: M;
  try {
    message = parse(record.body);
  } catch (error) {
    return {
      messageId,
      kind: "malformed",
      reason: error instanceof Error ? error.message : "unparsable body",
    };
  }
  try {
    const result = await handler(message, record.attributes.ApproximateReceiveCount, messageId);
    if (result.kind === "done") return { messageId, ...result };
    const delaySeconds = visibilityFor(result.delaySeconds, maxDelaySeconds);
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: delaySeconds,
      }),
    );
    return { messageId, kind: "retry", delaySeconds, note: result.note };
  } catch (error) {
    return { messageId, kind: "error", error };
  }
}

/** SQS's longest visibility timeout: 12 hours. */
const SQS_MAX_VISIBILITY_SECONDS = 43_200;

/** Whole seconds in [1, max]; 0 would redeliver at once and hot-loop the message. */
function visibilityFor(delaySeconds: number, max: number): number {
  const limit = Math.min(max, SQS_MAX_VISIBILITY_SECONDS);
  if (!Number.isFinite(delaySeconds)) return limit;
  return Math.min(limit, Math.max(1, Math.ceil(delaySeconds)));
}
