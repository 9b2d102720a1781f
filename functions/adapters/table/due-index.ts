import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type QueryCommandInput,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { subscriptionSchema } from "../../core/base/model";
import type { DueEntry } from "../../core/ports/billing-repository";
import { lazySchema } from "../../shared/lazy-schema";
import {
  addDueBuckets,
  DUE_INDEX,
  DUE_WATERMARK_KEY,
  duePartition,
  dueSortKeyUntil,
  startOfDueBucket,
  utcIso,
} from "./billing-table";
import { conditionally, queryPages, type TableContext } from "./dynamodb-table";

/**
 * 45 days: without a watermark (the first run on a table) a run looks back this far. Dunning waits (up to 7 days a
 * step) and a scheduler outage can leave subscriptions due in old days; a month and a half covers both. It costs
 * 45 × shards Queries once (720 at the defaults), then the watermark keeps runs to the last two days.
 */
export const DEFAULT_LOOKBACK_HOURS = 24 * 45;

/**
 * The watermark stays at least one bucket (day) behind a run's own. The due index is eventually consistent: an item
 * written just before a run may be missing from it, so the buckets next to `until` are read again by the next run.
 */
const WATERMARK_LAG_BUCKETS = 1;

const dueEntrySchema = lazySchema(() => subscriptionSchema.pick({ subscription_id: true, period: true }));
const watermarkSchema = lazySchema(() => z.object({ due_from: z.iso.datetime() }));

/**
 * Due entries (next_charge_at ≤ until) from the due index, day by day from the watermark up to `until`'s day, the
 * shards of one day side by side. Query only. Because the index lags the table a little, a just-written subscription
 * may be missed by one run and is picked up by the next; a just-charged one may still be listed (the charge protocol
 * re-reads the subscription before charging, so that is harmless).
 *
 * When every page was read, the watermark moves forward past the leading days that held nothing. Days below it are
 * never read again, which is safe because a write never buckets a subscription before its own updated_at day
 * (see dueKeys). The watermark stops at the oldest day still holding an entry, so a subscription that stays due
 * without being charged holds it back (each day of age then costs one Query per shard per run).
 */
export async function* listDueEntries(table: TableContext, until: Date): AsyncGenerator<readonly DueEntry[]> {
  const lastBucket = startOfDueBucket(until);
  const watermark = await readWatermark(table);
  let oldestFound: Date | undefined;
  const lookbackStart = startOfDueBucket(new Date(until.getTime() - table.lookbackHours * 3_600_000));
  for (let bucket = watermark ?? lookbackStart; bucket <= lastBucket; bucket = addDueBuckets(bucket, 1)) {
    for await (const items of queryPages(table.client, dueQueries(table, bucket, until))) {
      oldestFound ??= bucket;
      yield items.map((item) => dueEntrySchema.parse(item));
    }
  }
  const ceiling = addDueBuckets(lastBucket, -WATERMARK_LAG_BUCKETS);
  const next = oldestFound !== undefined && oldestFound < ceiling ? oldestFound : ceiling;
  if (watermark === undefined || next > watermark) await advanceWatermark(table, next);
}

function dueQueries(table: TableContext, bucket: Date, until: Date): QueryCommandInput[] {
  return Array.from({ length: table.shards }, (_, shard) => ({
    TableName: table.tableName,
    IndexName: DUE_INDEX,
    KeyConditionExpression: "#pk = :pk AND #sk <= :until",
    ExpressionAttributeNames: { "#pk": "due_pk", "#sk": "due_sk" },
    ExpressionAttributeValues: { ":pk": duePartition(bucket, shard), ":until": dueSortKeyUntil(until) },
    Limit: table.pageSize,
  }));
}

async function readWatermark(table: TableContext): Promise<Date | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: DUE_WATERMARK_KEY, ConsistentRead: true }),
  );
  return Item ? new Date(watermarkSchema.parse(Item).due_from) : undefined;
}

/** Only ever forward: a concurrent run that got further wins, and a lost race changes nothing. */
async function advanceWatermark(table: TableContext, dueFrom: Date): Promise<void> {
  await conditionally(() =>
    table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...DUE_WATERMARK_KEY, due_from: utcIso(dueFrom) },
        ConditionExpression: "attribute_not_exists(#pk) OR #from < :from",
        ExpressionAttributeNames: { "#pk": "pk", "#from": "due_from" },
        ExpressionAttributeValues: { ":from": utcIso(dueFrom) },
      }),
    ),
  );
}

/**
 * Marks a new table as holding nothing due before `createdAt`, so the first charge run starts there instead of
 * looking back DEFAULT_LOOKBACK_HOURS. Only sets a watermark where none exists.
 */
export async function initializeDueWatermark(
  client: DynamoDBDocumentClient,
  tableName: string,
  createdAt: Date,
): Promise<void> {
  await conditionally(() =>
    client.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...DUE_WATERMARK_KEY, due_from: utcIso(startOfDueBucket(createdAt)) },
        ConditionExpression: "attribute_not_exists(#pk)",
        ExpressionAttributeNames: { "#pk": "pk" },
      }),
    ),
  );
}
