import { setTimeout as sleep } from "node:timers/promises";
import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  AttributeValue as LambdaAttributeValue,
} from "aws-lambda";
import { outboxItemKey } from "../../functions/adapters/dynamodb/dynamodb-outbox";
import { EVERY_OUTBOX } from "../../functions/core/delivery/event-delivery";
import type { OutboxRef, OutboxStore } from "../../functions/core/ports/billing-repository";
import { outboxAdditionsOf } from "../../functions/inbound/outbox-stream";
import { LOCAL_REGION } from "../aws/dynamodb-emulator";
import { pendingOutboxes } from "./pending-outboxes";

type Item = Record<string, unknown>;
type ItemKey = { readonly pk: string; readonly sk: string };

// The billing table's stream and publish-events' event source mapping, locally. dynalite has no streams, so this
// polls the outbox index instead: each item holding events becomes a stream record of its current image (no old
// image, so every pending event counts as new), and publish-events is invoked with them as Lambda would. A failed
// delivery leaves the outbox pending, and the next poll offers it again.

/** One pass of the stream over every pending outbox: what publish-events delivered and what it failed. */
export interface StreamPassReport {
  /** Outboxes offered (each one record). */
  readonly outboxes: number;
  /** Events in the records the function processed. */
  readonly delivered: number;
  /** Records the function reported failed, or all of a batch it threw on; they stay pending for the next pass. */
  readonly failed: number;
}

/** The records a batch response names as failed (ReportBatchItemFailures), by sequence number. */
function failedSequences(response: unknown): Set<string> {
  const failures = (response as Partial<DynamoDBBatchResponse> | undefined)?.batchItemFailures ?? [];
  return new Set(failures.map((failure) => failure.itemIdentifier));
}

export interface LocalTableStreamOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly repository: OutboxStore;
  readonly batchSize: number;
  readonly invoke: (event: DynamoDBStreamEvent) => Promise<unknown>;
  readonly onError: (error: unknown) => void;
  /** Wait between two polls. */
  readonly idleMs?: number;
  /**
   * The table's writes, as the emulator sees them (LocalDynamoDb.onWrite): with them, the stream polls after a write
   * (still at most once per idleMs) and otherwise only every QUIET_POLL_MS, instead of every idleMs.
   */
  readonly onWrite?: (listener: () => void) => () => void;
}

/**
 * A write's stream record as Lambda delivers it (NEW_AND_OLD_IMAGES). The SDK's marshalled form and aws-lambda's
 * AttributeValue type describe the same JSON (the billing table holds no binary attributes), hence the one cast.
 */
export function streamRecordOf(
  key: ItemKey,
  images: { readonly newImage: Item; readonly oldImage?: Item },
  sequence: number,
): DynamoDBRecord {
  const image = (item: Item) =>
    marshall(item, { removeUndefinedValues: true }) as Record<string, LambdaAttributeValue>;
  return {
    eventID: String(sequence),
    eventName: "MODIFY",
    eventSource: "aws:dynamodb",
    eventVersion: "1.1",
    awsRegion: LOCAL_REGION,
    dynamodb: {
      Keys: image(key),
      NewImage: image(images.newImage),
      ...(images.oldImage === undefined ? {} : { OldImage: image(images.oldImage) }),
      SequenceNumber: String(sequence).padStart(21, "0"),
      StreamViewType: "NEW_AND_OLD_IMAGES",
    },
  };
}

/** The longest wait after failed passes (a bus outage): Lambda too backs off a failing stream batch. */
const MAX_BACKOFF_MS = 5_000;

/** With the table's writes in sight, the poll that looks anyway when none came. */
const QUIET_POLL_MS = 5_000;

export class LocalTableStream {
  #sequence = 0;
  /** Failed passes in a row: each doubles the wait before the next. */
  #failures = 0;
  #running = false;
  #loop: Promise<void> | undefined;
  #polling: Promise<void> | undefined;
  /** A write came since the last poll began. */
  #written = false;
  /** Ends the wait for a write, while one is waited for. */
  #wake: (() => void) | undefined;
  readonly #stopped = new AbortController();

  constructor(private readonly options: LocalTableStreamOptions) {}

  start(): void {
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Delivers until no outbox holds events, or until a delivery fails (what it left waits for a later poll). */
  async drain(): Promise<void> {
    for (;;) {
      await this.#polling;
      const before = await this.#pendingCount();
      if (before === 0) return;
      await this.#poll();
      if ((await this.#pendingCount()) >= before) return;
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#stopped.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const unsubscribe = this.options.onWrite?.(() => {
      this.#written = true;
      this.#wake?.();
    });
    try {
      while (this.#running) {
        this.#written = false;
        await this.#poll();
        const wait = Math.min((this.options.idleMs ?? 250) * 2 ** this.#failures, MAX_BACKOFF_MS);
        await sleep(wait, undefined, { signal: this.#stopped.signal }).catch(() => undefined);
        // Nothing written since the poll began: nothing new can be pending (a failed delivery polls on its backoff).
        if (unsubscribe !== undefined && !this.#written && this.#failures === 0)
          await this.#untilWrite(QUIET_POLL_MS);
      }
    } finally {
      unsubscribe?.();
    }
  }

  /** Waits for the next write, at most `ms`, or until the stream stops. */
  #untilWrite(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#stopped.signal.removeEventListener("abort", done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#stopped.signal.addEventListener("abort", done);
      this.#wake = done;
    });
  }

  /** One pass over the pending outboxes (a pass already under way is joined). */
  #poll(): Promise<void> {
    this.#polling ??= this.#offerPending().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  async #offerPending(): Promise<void> {
    try {
      const { failed } = await this.pass();
      this.#failures = failed === 0 ? 0 : this.#failures + 1;
    } catch (error) {
      this.#failures += 1;
      if (!this.#stopped.signal.aborted) this.options.onError(error);
    }
  }

  /**
   * Offers every pending outbox once, in batches, as the stream's event source mapping would. A batch the function
   * throws on counts as failed whole (reported to onError); the next pass offers what it left.
   */
  async pass(): Promise<StreamPassReport> {
    let outboxes = 0;
    let delivered = 0;
    let failed = 0;
    for await (const refs of this.options.repository.listPendingOutboxes(EVERY_OUTBOX)) {
      for (let start = 0; start < refs.length; start += this.options.batchSize) {
        const records = await this.#records(refs.slice(start, start + this.options.batchSize));
        if (records.length === 0) continue;
        outboxes += records.length;
        let failures: Set<string>;
        try {
          failures = failedSequences(await this.options.invoke({ Records: records }));
        } catch (error) {
          if (!this.#stopped.signal.aborted) this.options.onError(error);
          failures = new Set(records.map((record) => record.dynamodb?.SequenceNumber ?? ""));
        }
        for (const record of records) {
          if (failures.has(record.dynamodb?.SequenceNumber ?? "")) failed += 1;
          else delivered += outboxAdditionsOf(record).events.length;
        }
      }
    }
    return { outboxes, delivered, failed };
  }

  async #pendingCount(): Promise<number> {
    return (await pendingOutboxes(this.options.repository)).length;
  }

  async #records(refs: readonly OutboxRef[]): Promise<DynamoDBRecord[]> {
    const records: DynamoDBRecord[] = [];
    for (const ref of refs) {
      const key = outboxItemKey(ref);
      const { Item } = await this.options.client.send(
        new GetCommand({ TableName: this.options.tableName, Key: key, ConsistentRead: true }),
      );
      if (Item === undefined) continue;
      this.#sequence += 1;
      records.push(streamRecordOf(key, { newImage: Item }, this.#sequence));
    }
    return records;
  }
}
