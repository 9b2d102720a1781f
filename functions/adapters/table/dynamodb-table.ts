import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  type NativeAttributeValue,
  QueryCommand,
  type QueryCommandInput,
} from "@aws-sdk/lib-dynamodb";

export type Item = Record<string, NativeAttributeValue>;

/** The billing table as the adapter's functions see it (options resolved). */
export interface TableContext {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly shards: number;
  readonly lookbackHours: number;
  readonly pageSize: number;
}

/** Runs a conditional write: false when its condition did not hold; any other error propagates. */
export async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Runs several queries side by side (one per shard) and yields every non-empty page as it comes, following each
 * query's LastEvaluatedKey. One page per query is in flight at a time, so memory stays at one page per query.
 */
export async function* queryPages(
  client: DynamoDBDocumentClient,
  queries: readonly QueryCommandInput[],
): AsyncGenerator<Item[]> {
  let pending = queries;
  while (pending.length > 0) {
    const answers = await Promise.all(
      pending.map(async (input) => ({ input, output: await client.send(new QueryCommand(input)) })),
    );
    const next: QueryCommandInput[] = [];
    for (const { input, output } of answers) {
      if (output.Items && output.Items.length > 0) yield output.Items;
      if (output.LastEvaluatedKey) next.push({ ...input, ExclusiveStartKey: output.LastEvaluatedKey });
    }
    pending = next;
  }
}

/** A sharded sparse index: its name, its key attributes and the partition of each shard. */
export interface ShardedIndex {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly partition: (shard: number) => string;
}

/** One Query per shard of the index, for the sort keys below `below`, a page at a time. */
export function queriesBelow(table: TableContext, index: ShardedIndex, below: string): QueryCommandInput[] {
  return Array.from({ length: table.shards }, (_, shard) => ({
    TableName: table.tableName,
    IndexName: index.name,
    KeyConditionExpression: "#pk = :pk AND #sk < :below",
    ExpressionAttributeNames: { "#pk": index.partitionKey, "#sk": index.sortKey },
    ExpressionAttributeValues: { ":pk": index.partition(shard), ":below": below },
    Limit: table.pageSize,
  }));
}

/** BatchGetItem takes at most 100 keys. */
const MAX_BATCH_GET = 100;

/**
 * The items of `keys` that exist, in no particular order: 100 keys per BatchGetItem, the keys DynamoDB left
 * unprocessed asked again. `consistent` reads them strongly; `projection` reads only those attributes.
 */
export async function batchGetItems(
  table: Pick<TableContext, "client" | "tableName">,
  keys: readonly Item[],
  options: { readonly consistent?: boolean; readonly projection?: string } = {},
): Promise<Item[]> {
  const items: Item[] = [];
  for (let start = 0; start < keys.length; start += MAX_BATCH_GET) {
    let pending: Item[] = keys.slice(start, start + MAX_BATCH_GET);
    while (pending.length > 0) {
      const answer = await table.client.send(
        new BatchGetCommand({
          RequestItems: {
            [table.tableName]: {
              Keys: pending,
              ConsistentRead: options.consistent,
              ProjectionExpression: options.projection,
            },
          },
        }),
      );
      items.push(...(answer.Responses?.[table.tableName] ?? []));
      pending = answer.UnprocessedKeys?.[table.tableName]?.Keys ?? [];
    }
  }
  return items;
}

/**
 * The table's items of an index's entries (which hold their pk and sk), in the entries' order; an entry whose item is
 * gone is left out. For the indexes that project keys only.
 */
export async function itemsOfEntries(
  table: Pick<TableContext, "client" | "tableName">,
  entries: readonly Item[],
  options: { readonly consistent?: boolean } = {},
): Promise<Item[]> {
  const keyText = (item: Item) => JSON.stringify([item.pk, item.sk]);
  const keys = entries.map(({ pk, sk }) => ({ pk, sk }));
  const items = await batchGetItems(table, keys, options);
  const found = new Map(items.map((item) => [keyText(item), item]));
  return keys.flatMap((key) => found.get(keyText(key)) ?? []);
}
