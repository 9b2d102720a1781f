import {
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { planSchema, type Subscription, subscriptionSchema, subscriptionStatus } from "../../core/base/model";
import {
  InvalidCursorError,
  type PaidPlan,
  type SubscriptionPage,
  type SubscriptionQuery,
} from "../../core/ports/billing-repository";
import { lazySchema } from "../../shared/lazy-schema";
import {
  CUSTOMER_LINK_SK_PREFIX,
  customerLinkKey,
  customerLinkPartition,
  LIST_INDEX,
  recordOf,
  subscriptionKey,
  subscriptionListPartition,
} from "../table/billing-table";
import { batchGetItems, type Item, queryPages, type TableContext } from "../table/dynamodb-table";

// Listing subscriptions (GET /v1/subscriptions, the ops CLI) from indexes, never a Scan: by status through the list
// index (each status spread over the shards), one customer's through the customer links. Each page reads the
// subscriptions themselves (BatchGetItem, consistent) and keeps those that still match: an index entry may lag its
// item, and a link left by an edit of external_id is stale.

/** Where a listing stopped: the partition it was reading (its index in the listing's list) and the key after which. */
/** The table's and the list index's keys are strings. */
const keySchema = lazySchema(() => z.record(z.string(), z.string()));
const cursorSchema = lazySchema(() => z.object({ p: z.number().int().min(0), k: keySchema.optional() }));
type Cursor = z.infer<typeof cursorSchema>;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

function decodeCursor(text: string | undefined, partitions: number): Cursor {
  if (text === undefined) return { p: 0 };
  let cursor: Cursor | undefined;
  try {
    cursor = cursorSchema.parse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
  } catch {
    cursor = undefined;
  }
  if (cursor === undefined || cursor.p >= partitions)
    throw new InvalidCursorError("is not a cursor of this listing");
  return cursor;
}

/** The queries a listing reads, in order: one per status and shard, or the customer's links. */
function partitionsOf(table: TableContext, query: SubscriptionQuery): QueryCommandInput[] {
  if (query.external_id !== undefined) {
    return [
      {
        TableName: table.tableName,
        KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
        ExpressionAttributeNames: { "#pk": "pk", "#sk": "sk" },
        ExpressionAttributeValues: {
          ":pk": customerLinkPartition(query.external_id),
          ":prefix": CUSTOMER_LINK_SK_PREFIX,
        },
      },
    ];
  }
  const statuses = query.status === undefined ? subscriptionStatus.options : [query.status];
  return statuses.flatMap((status) =>
    Array.from({ length: table.shards }, (_, shard) => ({
      TableName: table.tableName,
      IndexName: LIST_INDEX,
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": "list_pk" },
      ExpressionAttributeValues: { ":pk": subscriptionListPartition(status, shard) },
    })),
  );
}

const idOf = (item: Item, external: boolean) =>
  external ? String(item.subscription_id) : String(item.pk).slice(subscriptionKey("").pk.length);

export async function listSubscriptions(
  table: TableContext,
  query: SubscriptionQuery,
  page: { readonly limit: number; readonly cursor?: string },
): Promise<SubscriptionPage> {
  const partitions = partitionsOf(table, query);
  let cursor: Cursor | undefined = decodeCursor(page.cursor, partitions.length);
  const found: Subscription[] = [];
  while (cursor !== undefined && found.length < page.limit) {
    const { p, k }: Cursor = cursor;
    const partition = partitions[p];
    if (partition === undefined) break;
    const answer: QueryCommandOutput = await table.client.send(
      new QueryCommand({ ...partition, ExclusiveStartKey: k, Limit: page.limit - found.length }),
    );
    const ids = (answer.Items ?? []).map((item) => idOf(item, query.external_id !== undefined));
    found.push(...(await readMatching(table, ids, query)));
    const next = answer.LastEvaluatedKey === undefined ? undefined : keySchema.parse(answer.LastEvaluatedKey);
    cursor = next !== undefined ? { p, k: next } : p + 1 < partitions.length ? { p: p + 1 } : undefined;
  }
  return { subscriptions: found, ...(cursor === undefined ? {} : { cursor: encodeCursor(cursor) }) };
}

/** The subscriptions of `ids` (consistent reads) that still match the query, in the order of `ids`. */
async function readMatching(
  table: TableContext,
  ids: readonly string[],
  query: SubscriptionQuery,
): Promise<Subscription[]> {
  const items = await batchGetItems(
    table,
    ids.map((id) => subscriptionKey(id)),
    { consistent: true },
  );
  const byId = new Map<string, Subscription>();
  for (const item of items) {
    const subscription = subscriptionSchema.parse(recordOf(item));
    byId.set(subscription.subscription_id, subscription);
  }
  return ids.flatMap((id) => {
    const subscription = byId.get(id);
    if (subscription === undefined) return [];
    if (query.status !== undefined && subscription.status !== query.status) return [];
    if (query.external_id !== undefined && subscription.customer.external_id !== query.external_id) return [];
    return [subscription];
  });
}

/** Links a subscription to its customer's external_id, before the subscription carries it. */
export async function linkCustomer(
  table: TableContext,
  externalId: string,
  subscription: Pick<Subscription, "subscription_id" | "created_at">,
): Promise<void> {
  await table.client.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...customerLinkKey(externalId, subscription), subscription_id: subscription.subscription_id },
    }),
  );
}

const paidPlanItemSchema = lazySchema(() => z.object({ plan: planSchema }));

/**
 * The plans of the active and past-due subscriptions, every shard of both statuses side by side: the list index
 * carries each subscription's `plan`, so nothing else is read (eventually consistent, half a read unit per 4 KB).
 */
export async function* listPayingPlans(table: TableContext): AsyncGenerator<readonly PaidPlan[]> {
  const queries = (["active", "past_due"] as const).flatMap((status) =>
    Array.from({ length: table.shards }, (_, shard) => ({
      TableName: table.tableName,
      IndexName: LIST_INDEX,
      KeyConditionExpression: "#pk = :pk",
      ProjectionExpression: "#plan",
      ExpressionAttributeNames: { "#pk": "list_pk", "#plan": "plan" },
      ExpressionAttributeValues: { ":pk": subscriptionListPartition(status, shard) },
      Limit: table.pageSize,
    })),
  );
  for await (const items of queryPages(table.client, queries))
    yield items.map((item) => paidPlanItemSchema.parse(item).plan);
}
