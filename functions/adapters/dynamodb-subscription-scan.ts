import { type DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { type Subscription, type SubscriptionStatus, subscriptionSchema } from "../core/model";
import { recordOf, subscriptionKey } from "./billing-table";
import { buildUpdateExpression, equals } from "./update-expression";

export interface SubscriptionScanOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Only subscriptions in this status. */
  readonly status?: SubscriptionStatus;
  /** Stop once this many are found. */
  readonly limit: number;
  /** Items read per Scan page (before the filter). Default 500. */
  readonly pageSize?: number;
}

/**
 * OPS ONLY (`npx billing subscriptions list`): no index lists every subscription (the due index holds only those
 * with a next charge, and projects ids only), so this is a paginated Scan filtered to subscription items, stopped at
 * `limit`. A Scan reads, and is billed for, every item it passes, and finds subscriptions in no particular order; the
 * charge path and every handler use Query and GetItem only (dynamodb-billing-repository.ts), never this.
 */
export async function scanSubscriptions(options: SubscriptionScanOptions): Promise<Subscription[]> {
  const conditions = [
    equals("sk", subscriptionKey("").sk),
    ...(options.status === undefined ? [] : [equals("status", options.status)]),
  ];
  // A filter is a condition expression: the same builder, nothing to update.
  const filter = buildUpdateExpression({ set: {}, remove: [], conditions });
  const found: Subscription[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await options.client.send(
      new ScanCommand({
        TableName: options.tableName,
        FilterExpression: filter.ConditionExpression,
        ExpressionAttributeNames: filter.ExpressionAttributeNames,
        ExpressionAttributeValues: filter.ExpressionAttributeValues,
        Limit: options.pageSize ?? 500,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) found.push(subscriptionSchema.parse(recordOf(item)));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined && found.length < options.limit);
  return found.slice(0, options.limit);
}
