import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import {
  type AttemptKey,
  type ChargeAttempt,
  chargeAttemptSchema,
  OPEN_ATTEMPT_STATUSES,
  type Subscription,
  subscriptionSchema,
} from "../core/model";
import { orderIdFor } from "../core/order-id";
import type { AttemptUpdate, BillingRepository, ClaimResult, SubscriptionUpdate } from "../core/ports";
import {
  ATTEMPT_SK_PREFIX,
  attemptKey,
  DEFAULT_SHARDS,
  dueKeys,
  KEY_ATTRIBUTES,
  OPEN_INDEX,
  openKeys,
  openPartition,
  subscriptionKey,
  utcIso,
} from "./billing-table";
import { DEFAULT_LOOKBACK_HOURS, listDueEntries } from "./due-index";
import { conditionally, type Item, queryPages, type TableContext } from "./dynamodb-table";
import { absent, buildUpdateExpression, equals, exists, type UpdatePlan } from "./update-expression";

export interface DynamoDbBillingRepositoryOptions {
  /** Must strip undefined values (marshallOptions.removeUndefinedValues), as createDynamoDbDocumentClient does. */
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Index shards; fixed for the life of a table. Default 16. */
  readonly shards?: number;
  /** How far the first listDue run on a table looks back. Default 45 days. */
  readonly lookbackHours?: number;
  /** Items per Query page. Default 100. */
  readonly pageSize?: number;
}

/**
 * The BillingRepository on the single-table design of billing-table.ts: single-item conditional writes only (no
 * transactions: the local emulator lacks them), Query and GetItem only (never Scan). Each index key is kept in step
 * with the field it derives from inside the same write.
 */
export function createDynamoDbBillingRepository(
  options: DynamoDbBillingRepositoryOptions,
): BillingRepository {
  if (options.client.config.translateConfig?.marshallOptions?.removeUndefinedValues !== true) {
    throw new Error(
      "the DynamoDB document client must be created with marshallOptions.removeUndefinedValues",
    );
  }
  const table: TableContext = {
    client: options.client,
    tableName: options.tableName,
    shards: options.shards ?? DEFAULT_SHARDS,
    lookbackHours: options.lookbackHours ?? DEFAULT_LOOKBACK_HOURS,
    pageSize: options.pageSize ?? 100,
  };
  return {
    createSubscription: (subscription) => createSubscription(table, subscription),
    getSubscription: async (id) => {
      const item = await getItem(table, subscriptionKey(id));
      return item && subscriptionSchema.parse(recordOf(item));
    },
    updateSubscription: (id, update) => updateSubscription(table, id, update),
    listDue: (until) => listDueEntries(table, until),
    claimAttempt: (attempt) => claimAttempt(table, attempt),
    getAttempt: async (key) => {
      const item = await getItem(table, attemptKey(key));
      return item && chargeAttemptSchema.parse(recordOf(item));
    },
    updateAttempt: (key, update) => updateAttempt(table, key, update),
    listOpenAttempts: (before) => listOpenAttempts(table, before),
    listAttempts: (id) => listAttempts(table, id),
  };
}

/** The record without the table's and indexes' key attributes, ready for its schema. */
function recordOf(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.includes(name)));
}

async function getItem(table: TableContext, key: Item): Promise<Item | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

/** A Put that only creates: it fails its condition when the key is taken. */
function putNew(table: TableContext, item: Item): PutCommandInput {
  return { TableName: table.tableName, Item: item, ConditionExpression: "attribute_not_exists(pk)" };
}

/** One conditional UpdateItem on an existing item. */
function updateItem(table: TableContext, key: Item, plan: UpdatePlan): Promise<boolean> {
  const expression = buildUpdateExpression({ ...plan, conditions: [exists("pk"), ...plan.conditions] });
  return conditionally(() =>
    table.client.send(new UpdateCommand({ TableName: table.tableName, Key: key, ...expression })),
  );
}

function createSubscription(table: TableContext, subscription: Subscription): Promise<boolean> {
  const { subscription_id: id, next_charge_at, updated_at } = subscription;
  const due = next_charge_at === undefined ? {} : dueKeys(id, next_charge_at, updated_at, table.shards);
  const item = { ...subscription, ...subscriptionKey(id), ...due };
  return conditionally(() => table.client.send(new PutCommand(putNew(table, item))));
}

function updateSubscription(table: TableContext, id: string, update: SubscriptionUpdate): Promise<boolean> {
  const remove = update.remove ?? [];
  const { next_charge_at, updated_at } = update.set;
  const due = next_charge_at === undefined ? {} : dueKeys(id, next_charge_at, updated_at, table.shards);
  const dueRemoved = remove.includes("next_charge_at") ? ["due_pk", "due_sk"] : [];
  const expected = Object.entries(update.expect)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => equals(name, value));
  return updateItem(table, subscriptionKey(id), {
    set: { ...update.set, ...due },
    remove: [...remove, ...dueRemoved],
    conditions: expected,
  });
}

function openIndexKeys(attempt: ChargeAttempt, shards: number) {
  return OPEN_ATTEMPT_STATUSES.includes(attempt.status)
    ? openKeys(attempt.subscription_id, attempt.order_id, attempt.lease_until, shards)
    : {};
}

async function claimAttempt(table: TableContext, attempt: ChargeAttempt): Promise<ClaimResult> {
  const item = { ...attempt, ...attemptKey(attempt), ...openIndexKeys(attempt, table.shards) };
  try {
    // AWS returns the item in the way with the failure; an emulator that ignores this costs one GetItem instead.
    await table.client.send(
      new PutCommand({ ...putNew(table, item), ReturnValuesOnConditionCheckFailure: "ALL_OLD" }),
    );
    return { claimed: true };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const existing = error.Item ? unmarshall(error.Item) : await getItem(table, attemptKey(attempt));
    // Attempts are never deleted, so the item that failed the condition is still there.
    if (!existing) throw new Error("claimed attempt vanished");
    return { claimed: false, existing: chargeAttemptSchema.parse(recordOf(existing)) };
  }
}

/**
 * The expected status (and lease) make the write a compare-and-set. They also give the attempt's state after the
 * write without reading it, so the open index keys are set or removed in the same UpdateItem.
 */
function updateAttempt(table: TableContext, key: AttemptKey, update: AttemptUpdate): Promise<boolean> {
  const { expect, set } = update;
  const remove = update.remove ?? [];
  const status = set.status ?? expect.status;
  const leaseUntil = remove.includes("lease_until") ? undefined : (set.lease_until ?? expect.lease_until);
  const open = OPEN_ATTEMPT_STATUSES.includes(status);
  const index = open ? openKeys(key.subscription_id, orderIdFor(key), leaseUntil, table.shards) : {};
  const leaseCondition =
    expect.lease_until === undefined ? absent("lease_until") : equals("lease_until", expect.lease_until);
  return updateItem(table, attemptKey(key), {
    set: { ...set, ...index },
    remove: open ? remove : [...remove, "open_pk", "open_sk"],
    conditions: [equals("status", expect.status), leaseCondition],
  });
}

/** Open attempts whose lease ended before `before`. The index lags the table: the caller re-checks by condition. */
async function* listOpenAttempts(
  table: TableContext,
  before: Date,
): AsyncGenerator<readonly ChargeAttempt[]> {
  const queries = Array.from({ length: table.shards }, (_, shard) => ({
    TableName: table.tableName,
    IndexName: OPEN_INDEX,
    KeyConditionExpression: "#pk = :pk AND #sk < :before",
    ExpressionAttributeNames: { "#pk": "open_pk", "#sk": "open_sk" },
    ExpressionAttributeValues: { ":pk": openPartition(shard), ":before": utcIso(before) },
    Limit: table.pageSize,
  }));
  for await (const items of queryPages(table.client, queries)) {
    yield items.map((item) => chargeAttemptSchema.parse(recordOf(item)));
  }
}

async function listAttempts(table: TableContext, subscriptionId: string): Promise<readonly ChargeAttempt[]> {
  const query = {
    TableName: table.tableName,
    KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
    ExpressionAttributeNames: { "#pk": "pk", "#sk": "sk" },
    ExpressionAttributeValues: { ":pk": subscriptionKey(subscriptionId).pk, ":prefix": ATTEMPT_SK_PREFIX },
    ConsistentRead: true,
  };
  const attempts: ChargeAttempt[] = [];
  for await (const items of queryPages(table.client, [query])) {
    attempts.push(...items.map((item) => chargeAttemptSchema.parse(recordOf(item))));
  }
  return attempts;
}
