import { BatchWriteCommand, type BatchWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { type OutboxEvent, outboxEventSchema } from "../../core/base/events";
import type { EventLogQuery } from "../../core/ports/billing-repository";
import { lazySchema } from "../../shared/lazy-schema";
import {
  EVENT_SK_PREFIX,
  eventLogPartition,
  LIST_INDEX,
  loggedEventKeys,
  subscriptionKey,
  TTL_ATTRIBUTE,
  utcIso,
} from "../table/billing-table";
import { type Item, itemsOfEntries, queryPages, type TableContext } from "../table/dynamodb-table";

// The event log (README, Events): every delivered event kept as an item under its subscription for a retention,
// so that the ops CLI can list and re-publish a subscription's events, or a time range's, to a consumer that lost
// its own. Written by delivery after the bus took the events: a re-delivery writes the same items again.

/** How long a logged event is kept: past a yearly plan's renewal and a chargeback's window. */
export const EVENT_LOG_RETENTION_DAYS = 400;

const DAY_MS = 86_400_000;
/** BatchWriteItem takes at most 25 requests. */
const MAX_BATCH = 25;
/** Attempts at the items DynamoDB left unprocessed (throttling) before the delivery fails and is retried. */
const BATCH_ATTEMPTS = 5;

const loggedItemSchema = lazySchema(() => z.object({ event: outboxEventSchema }));

export async function logEvents(table: TableContext, events: readonly OutboxEvent[]): Promise<void> {
  for (let start = 0; start < events.length; start += MAX_BATCH) {
    let requests: NonNullable<BatchWriteCommandInput["RequestItems"]>[string] = events
      .slice(start, start + MAX_BATCH)
      .map((event) => ({ PutRequest: { Item: loggedItem(event, table.shards) } }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      if (attempt === BATCH_ATTEMPTS) throw new Error(`${requests.length} event(s) could not be logged`);
      const { UnprocessedItems } = await table.client.send(
        new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }),
      );
      requests = UnprocessedItems?.[table.tableName] ?? [];
    }
  }
}

function loggedItem(event: OutboxEvent, shards: number) {
  const expiresAt = Date.parse(event.occurred_at) + EVENT_LOG_RETENTION_DAYS * DAY_MS;
  return { ...loggedEventKeys(event, shards), event, [TTL_ATTRIBUTE]: Math.floor(expiresAt / 1000) };
}

export async function* readEventLog(
  table: TableContext,
  query: EventLogQuery,
): AsyncGenerator<readonly OutboxEvent[]> {
  const pages =
    "subscription_id" in query
      ? queryPages(table.client, [
          {
            TableName: table.tableName,
            KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
            ExpressionAttributeNames: { "#pk": "pk", "#sk": "sk" },
            ExpressionAttributeValues: {
              ":pk": subscriptionKey(query.subscription_id).pk,
              ":prefix": EVENT_SK_PREFIX,
            },
            Limit: table.pageSize,
          },
        ])
      : loggedItemsOf(table, timeRangePages(table, query.from, query.to));
  for await (const items of pages) yield items.map((item) => loggedItemSchema.parse(item).event);
}

/**
 * The logged items of the list index's pages, in their order: the index holds their keys only (an event carries the
 * subscription's view, which lives once, in its item), so each page is read from the table.
 */
async function* loggedItemsOf(table: TableContext, pages: AsyncIterable<Item[]>): AsyncGenerator<Item[]> {
  for await (const entries of pages) yield itemsOfEntries(table, entries);
}

/**
 * Day by day, the shards of a day side by side (as the ledger reader). [from, to) by occurred_at: a sort key is
 * `<occurred_at>#<event_id>`, so BETWEEN from AND to takes an event at `from` and leaves one at `to`.
 */
async function* timeRangePages(table: TableContext, from: Date, to: Date) {
  const range = { ":from": utcIso(from), ":to": utcIso(to) };
  for (let day = Math.floor(from.getTime() / DAY_MS); day * DAY_MS < to.getTime(); day += 1) {
    const queries = Array.from({ length: table.shards }, (_, shard) => ({
      TableName: table.tableName,
      IndexName: LIST_INDEX,
      KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :from AND :to",
      ExpressionAttributeNames: { "#pk": "list_pk", "#sk": "list_sk" },
      ExpressionAttributeValues: { ":pk": eventLogPartition(new Date(day * DAY_MS), shard), ...range },
      Limit: table.pageSize,
    }));
    yield* queryPages(table.client, queries);
  }
}
