import { setTimeout as sleep } from "node:timers/promises";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSEvent } from "aws-lambda";
import { z } from "zod";
import { deleteBatch } from "../../functions/adapters/aws/sqs-poller";
import { visibleMessageCount } from "../aws/sqs-emulator";
import { receiveLambdaEvent } from "./sqs-lambda-event";

// Lambda's SQS event source mapping, locally: batches received from the queue in the Lambda event shape, the
// function invoked with them, the records it did not report as failures deleted (ReportBatchItemFailures). A
// function that throws leaves its whole batch to come back after the visibility timeout; the queue's redrive
// policy moves a message to its DLQ after maxReceiveCount receives, as on AWS.

const batchResponse = z.object({
  batchItemFailures: z.array(z.object({ itemIdentifier: z.string() })).default([]),
});

/**
 * One batch as the mapping hands it over: the function invoked with it, then the records it did not report as
 * failures deleted. Answers how many it reported; a function that throws leaves the whole batch (the caller decides).
 */
export async function deliverBatch(
  client: SQSClient,
  queueUrl: string,
  event: SQSEvent,
  invoke: (event: SQSEvent) => Promise<unknown>,
): Promise<{ readonly failed: number }> {
  const response = batchResponse.parse((await invoke(event)) ?? {});
  await deleteBatch(client, queueUrl, event.Records, response.batchItemFailures);
  return { failed: response.batchItemFailures.length };
}

export interface EventSourceMappingOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly batchSize: number;
  /** Batches in flight at once (the mapping's maximum concurrency). */
  readonly concurrency: number;
  readonly invoke: (event: SQSEvent) => Promise<unknown>;
  readonly onError: (error: unknown) => void;
  /** Wait between two receives that found nothing. */
  readonly idleMs?: number;
}

export class EventSourceMapping {
  readonly #active = new Set<Promise<void>>();
  /** The poller's receive in flight: its messages are invisible before they become a batch. */
  #receiving: Promise<SQSEvent> | undefined;
  #running = false;
  #loop: Promise<void> | undefined;
  readonly #stopped = new AbortController();

  constructor(private readonly options: EventSourceMappingOptions) {}

  start(): void {
    this.#running = true;
    this.#loop = this.#poll();
  }

  /**
   * Receives and processes until a receive finds nothing and no batch is in flight. Messages waiting out a retry's
   * visibility delay are not waited for.
   */
  async drain(): Promise<void> {
    for (;;) {
      if ((await visibleMessageCount(this.options.client, this.options.queueUrl)) > 0) {
        const event = await this.#receive();
        if (event.Records.length > 0) await this.#track(event);
        continue;
      }
      const pending = [...this.#active, ...(this.#receiving === undefined ? [] : [this.#receiving])];
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#stopped.abort();
    await this.#loop;
    await Promise.all(this.#active);
  }

  async #poll(): Promise<void> {
    const idleMs = this.options.idleMs ?? 250;
    while (this.#running) {
      try {
        if (this.#active.size >= this.options.concurrency) {
          await Promise.race(this.#active);
          continue;
        }
        this.#receiving = this.#receive();
        let event: SQSEvent;
        try {
          event = await this.#receiving;
        } finally {
          // Cleared in the same turn as its records become a tracked batch: drain never sees neither.
          this.#receiving = undefined;
        }
        if (event.Records.length > 0) {
          void this.#track(event);
          continue;
        }
      } catch (error) {
        if (this.#running) this.options.onError(error);
      }
      await sleep(idleMs, undefined, { signal: this.#stopped.signal }).catch(() => undefined);
    }
  }

  #receive(): Promise<SQSEvent> {
    return receiveLambdaEvent(this.options.client, this.options.queueUrl, this.options.batchSize);
  }

  #track(event: SQSEvent): Promise<void> {
    const batch = this.#process(event).finally(() => this.#active.delete(batch));
    this.#active.add(batch);
    return batch;
  }

  async #process(event: SQSEvent): Promise<void> {
    try {
      await deliverBatch(this.options.client, this.options.queueUrl, event, this.options.invoke);
    } catch (error) {
      // The function failed: nothing is deleted, the batch comes back after the visibility timeout.
      this.options.onError(error);
    }
  }
}
