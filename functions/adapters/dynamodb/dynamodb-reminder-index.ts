import type { DynamoDBDocumentClient, QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import type { ReminderIndex } from "../../core/ports/mailer";
import { lazySchema } from "../../shared/lazy-schema";
import {
  DEFAULT_SHARDS,
  DUE_INDEX,
  duePartition,
  LIST_INDEX,
  startOfDueBucket,
  tokenExpiryPartition,
} from "../table/billing-table";
import { queryPages } from "../table/dynamodb-table";

export interface DynamoDbReminderIndexOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The table's index shards (fixed for its life). Default 16. */
  readonly shards?: number;
  readonly pageSize?: number;
}

const dueEntrySchema = lazySchema(() => z.object({ subscription_id: z.string(), period: z.number().int() }));
const expiringTokenSchema = lazySchema(() => z.object({ list_sk: z.string() }));

/**
 * What the date-driven mails are found by, Query only: a day's partitions of the due index (every shard), and a
 * month's partitions of the list index, where a token whose card's expiry is known is kept by that month.
 */
export function createDynamoDbReminderIndex(options: DynamoDbReminderIndexOptions): ReminderIndex {
  const shards = options.shards ?? DEFAULT_SHARDS;
  const queries = (index: string, partitionKey: string, partition: (shard: number) => string) =>
    Array.from(
      { length: shards },
      (_, shard): QueryCommandInput => ({
        TableName: options.tableName,
        IndexName: index,
        KeyConditionExpression: "#pk = :pk",
        ExpressionAttributeNames: { "#pk": partitionKey },
        ExpressionAttributeValues: { ":pk": partition(shard) },
        Limit: options.pageSize ?? 100,
      }),
    );
  return {
    async *listDueOn(day) {
      const bucket = startOfDueBucket(day);
      const pages = queryPages(
        options.client,
        queries(DUE_INDEX, "due_pk", (shard) => duePartition(bucket, shard)),
      );
      for await (const items of pages) yield items.map((item) => dueEntrySchema.parse(item));
    },
    async *listTokensExpiring(month) {
      const pages = queryPages(
        options.client,
        queries(LIST_INDEX, "list_pk", (shard) => tokenExpiryPartition(month, shard)),
      );
      for await (const items of pages) yield items.map((item) => expiringTokenSchema.parse(item).list_sk);
    },
  };
}
