import { randomUUID } from "node:crypto";
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { type BillingEvent, type OutboxEvent, outboxEventSchema } from "../../core/base/events";
import type { OutboxRef } from "../../core/ports/billing-repository";
import { lazySchema } from "../../shared/lazy-schema";
import { OUTBOX_ATTRIBUTE, OUTBOX_INDEX, outboxKeys, outboxPartition, utcIso } from "../table/billing-table";
import { conditionally, queriesBelow, queryPages, type TableContext } from "../table/dynamodb-table";
import type { UpdatePlan } from "../table/update-expression";

// The transactional outbox on the billing table (README, Events). A write that announces events appends them, each
// with a new event_id, to the item's `outbox` list in the same conditional UpdateItem as the state, and enters the
// item in the sparse outbox index (kept as it is while the outbox already holds events). Delivery (the table's
// stream on AWS, the outbox sweep everywhere) publishes them and takes them out again: markDelivered.

type ItemKey = { readonly pk: string; readonly sk: string };

const SEPARATOR = "|";

export function outboxRefOf(key: ItemKey): OutboxRef {
  return `${key.pk}${SEPARATOR}${key.sk}`;
}

/** The table key of the item an outbox reference names. */
export function outboxItemKey(ref: OutboxRef): ItemKey {
  const at = ref.indexOf(SEPARATOR);
  if (at <= 0) throw new RangeError(`not an outbox reference: ${ref}`);
  return { pk: ref.slice(0, at), sk: ref.slice(at + 1) };
}

/** The events of a write as its outbox stores them: each with its own id, occurring at the write's instant. */
function stampEvents(events: readonly BillingEvent[], occurredAt: string): OutboxEvent[] {
  return events.map((event) => ({ ...event, event_id: randomUUID(), occurred_at: utcIso(occurredAt) }));
}

/** What a write adds to its UpdateItem to put `events` in the item's outbox (nothing when there are none). */
export function outboxPlan(
  key: ItemKey,
  events: readonly BillingEvent[] | undefined,
  occurredAt: string,
  shards: number,
): Pick<UpdatePlan, "append" | "setIfAbsent"> {
  if (events === undefined || events.length === 0) return {};
  return {
    append: { [OUTBOX_ATTRIBUTE]: stampEvents(events, occurredAt) },
    setIfAbsent: outboxKeys(key, occurredAt, shards),
  };
}

/** What a create-only Put adds to its item to put `events` in the new item's outbox (nothing when there are none). */
export function outboxAttributes(
  key: ItemKey,
  events: readonly BillingEvent[] | undefined,
  occurredAt: string,
  shards: number,
): Record<string, unknown> {
  if (events === undefined || events.length === 0) return {};
  return { [OUTBOX_ATTRIBUTE]: stampEvents(events, occurredAt), ...outboxKeys(key, occurredAt, shards) };
}

export const outboxItemSchema = lazySchema(() =>
  z.object({ [OUTBOX_ATTRIBUTE]: z.array(outboxEventSchema).default([]) }),
);

async function readPending(table: TableContext, key: ItemKey): Promise<readonly OutboxEvent[]> {
  const { Item } = await table.client.send(
    new GetCommand({
      TableName: table.tableName,
      Key: key,
      ConsistentRead: true,
      ProjectionExpression: "#outbox",
      ExpressionAttributeNames: { "#outbox": OUTBOX_ATTRIBUTE },
    }),
  );
  return Item === undefined ? [] : outboxItemSchema.parse(Item)[OUTBOX_ATTRIBUTE];
}

export function readOutbox(table: TableContext, ref: OutboxRef): Promise<readonly OutboxEvent[]> {
  return readPending(table, outboxItemKey(ref));
}

/** Concurrent writes append to an outbox while it is delivered: each lost race reads it again. */
const MARK_ATTEMPTS = 8;

/**
 * Takes the delivered events out with a compare-and-set on the outbox as read: its length and last event id
 * identify it, because writes only append new ids and deliveries only remove. An emptied outbox leaves the index.
 * The outbox the caller read (`asRead`) is tried first, so a delivery that has it reads nothing more.
 */
export async function markDelivered(
  table: TableContext,
  ref: OutboxRef,
  eventIds: readonly string[],
  asRead?: readonly OutboxEvent[],
): Promise<void> {
  const key = outboxItemKey(ref);
  const delivered = new Set(eventIds);
  let known = asRead;
  for (let attempt = 0; attempt < MARK_ATTEMPTS; attempt += 1) {
    const pending = known ?? (await readPending(table, key));
    known = undefined;
    const remaining = pending.filter((event) => !delivered.has(event.event_id));
    const last = pending.at(-1);
    if (last === undefined || remaining.length === pending.length) return;
    const [oldest] = remaining;
    const update =
      oldest === undefined
        ? "REMOVE #outbox, #outbox_pk, #outbox_sk"
        : "SET #outbox = :remaining, #outbox_pk = :outbox_pk, #outbox_sk = :outbox_sk";
    const marked = await conditionally(() =>
      table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: `size(#outbox) = :length AND #outbox[${pending.length - 1}].#id = :last`,
          ExpressionAttributeNames: {
            "#outbox": OUTBOX_ATTRIBUTE,
            "#outbox_pk": "outbox_pk",
            "#outbox_sk": "outbox_sk",
            "#id": "event_id",
          },
          ExpressionAttributeValues: {
            ":length": pending.length,
            ":last": last.event_id,
            ...(oldest === undefined ? {} : remainingValues(key, remaining, oldest, table.shards)),
          },
        }),
      ),
    );
    if (marked) return;
  }
  throw new Error(`outbox ${ref} kept changing while its delivery was marked`);
}

/** The outbox that is left, and the index keys of its oldest event. */
function remainingValues(
  key: ItemKey,
  remaining: readonly OutboxEvent[],
  oldest: OutboxEvent,
  shards: number,
) {
  const since = outboxKeys(key, oldest.occurred_at, shards);
  return { ":remaining": remaining, ":outbox_pk": since.outbox_pk, ":outbox_sk": since.outbox_sk };
}

/** Outboxes whose oldest pending event occurred at or before `before`, shard by shard, page by page. */
export async function* listPendingOutboxes(
  table: TableContext,
  before: Date,
): AsyncGenerator<readonly OutboxRef[]> {
  const index = {
    name: OUTBOX_INDEX,
    partitionKey: "outbox_pk",
    sortKey: "outbox_sk",
    partition: outboxPartition,
  };
  // Every sort key of that instant is below this bound: "~" sorts after "#".
  const queries = queriesBelow(table, index, `${utcIso(before)}~`);
  for await (const items of queryPages(table.client, queries)) {
    yield items.map((item) => outboxRefOf(itemKeySchema.parse(item)));
  }
}

export const itemKeySchema = lazySchema(() => z.object({ pk: z.string(), sk: z.string() }));
