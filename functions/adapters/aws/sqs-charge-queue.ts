import { setTimeout as sleep } from "node:timers/promises";
import {
  type BatchResultErrorEntry,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { type ChargeQueue, toChargeMessage } from "../../core/ports/queues";
import { mapConcurrently } from "../../shared/map-concurrently";

/** Some messages were not accepted by SQS after every retry: the caller must not treat them as queued. */
export class ChargeQueueSendError extends Error {
  override readonly name = "ChargeQueueSendError";
  constructor(
    readonly notAccepted: number,
    readonly total: number,
    /** Error codes SQS gave (or the name of the error a whole batch failed with). */
    readonly codes: readonly string[],
    options?: ErrorOptions,
  ) {
    super(
      `${notAccepted} of ${total} charge messages were not accepted by SQS (${codes.join(", ")})`,
      options,
    );
  }
}

export interface SqsChargeQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** SendMessageBatch requests in flight at once (default 4). */
  readonly concurrency?: number;
  /** Sends of one batch, counting the first, while SQS reports entries as Failed (default 5). */
  readonly maxAttempts?: number;
  /** First backoff before re-sending failed entries; doubles on each attempt (default 100 ms). */
  readonly backoffMs?: number;
}

/** SendMessageBatch takes at most 10 entries. */
const BATCH_SIZE = 10;

interface BatchOutcome {
  readonly notAccepted: number;
  readonly codes: readonly string[];
  readonly cause?: unknown;
}

/** The charge run's queue on SQS: one message per due subscription, sent in batches of 10. */
export function createSqsChargeQueue(options: SqsChargeQueueOptions): ChargeQueue {
  const { concurrency = 4 } = options;
  return {
    async send(messages) {
      // Validate everything before sending anything: a bad message is our bug, not a partial send.
      const bodies = messages.map((message) => JSON.stringify(toChargeMessage(message)));
      const batches: SendMessageBatchRequestEntry[][] = [];
      for (let start = 0; start < bodies.length; start += BATCH_SIZE) {
        // Entry ids only need to be unique within one request.
        const entries = bodies
          .slice(start, start + BATCH_SIZE)
          .map((body, index) => ({ Id: String(index), MessageBody: body }));
        batches.push(entries);
      }
      const outcomes = await mapConcurrently(batches, concurrency, (entries) => sendBatch(options, entries));
      const notAccepted = outcomes.reduce((sum, outcome) => sum + outcome.notAccepted, 0);
      if (notAccepted === 0) return;
      const codes = [...new Set(outcomes.flatMap((outcome) => outcome.codes))];
      const cause = outcomes.find((outcome) => outcome.cause !== undefined)?.cause;
      throw new ChargeQueueSendError(notAccepted, messages.length, codes, { cause });
    },
  };
}

/**
 * Sends one batch, re-sending with backoff the entries SQS reports as Failed; an entry failed by our own fault
 * (SenderFault) would fail again and is counted as not accepted at once.
 */
async function sendBatch(
  { client, queueUrl, maxAttempts = 5, backoffMs = 100 }: SqsChargeQueueOptions,
  entries: readonly SendMessageBatchRequestEntry[],
): Promise<BatchOutcome> {
  let pending = entries;
  const rejectedCodes: string[] = [];
  for (let attempt = 1; ; attempt++) {
    let failed: readonly BatchResultErrorEntry[];
    try {
      const reply = await client.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [...pending] }),
      );
      failed = reply.Failed ?? [];
    } catch (error) {
      // The SDK has already retried the request; its entries may or may not have been queued.
      return {
        notAccepted: rejectedCodes.length + pending.length,
        codes: [...rejectedCodes, errorName(error)],
        cause: error,
      };
    }
    const retryable = failed.filter((entry) => !entry.SenderFault);
    rejectedCodes.push(...failed.filter((entry) => entry.SenderFault).map(codeOf));
    const retryIds = new Set(retryable.map((entry) => entry.Id));
    pending = pending.filter((entry) => retryIds.has(entry.Id));
    if (pending.length === 0 || attempt >= maxAttempts) {
      return {
        notAccepted: rejectedCodes.length + pending.length,
        codes: [...rejectedCodes, ...retryable.map(codeOf)],
      };
    }
    await sleep(backoffMs * 2 ** (attempt - 1));
  }
}

function codeOf(entry: BatchResultErrorEntry): string {
  return entry.Code ?? "unknown";
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "unknown error";
}
