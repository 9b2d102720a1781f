import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  type QueryCommandInput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import * as z from "zod";
import type { BillingEvent } from "../../core/base/events";
import {
  type AttemptKey,
  type ChargeAttempt,
  chargeAttemptSchema,
  OPEN_ATTEMPT_STATUSES,
  OPEN_REFUND_STATUSES,
  type RefundRecord,
  refundRecordSchema,
  type Subscription,
  subscriptionSchema,
  type TokenRecord,
  tokenRecordSchema,
} from "../../core/base/model";
import { orderIdFor } from "../../core/base/order-id";
import type {
  AttemptUpdate,
  BillingRepository,
  ClaimResult,
  RefundUpdate,
  SubscriptionUpdate,
  TokenUpdate,
} from "../../core/ports/billing-repository";
import type { Clock } from "../../core/ports/clock";
import { lazySchema } from "../../shared/lazy-schema";
import {
  ATTEMPT_SK_PREFIX,
  attemptKey,
  DEFAULT_SHARDS,
  dedupKey,
  dueKeys,
  ledgerKeys,
  OPEN_INDEX,
  openCheckoutKeys,
  openCheckoutPartition,
  openCreditKeys,
  openCreditPartition,
  openKeys,
  openPartition,
  openRefundKeys,
  openRefundPartition,
  REFUND_SK_PREFIX,
  recordOf,
  refundIndexKeys,
  refundKey,
  SUBSCRIPTION_INDEX,
  shardOf,
  subscriptionKey,
  subscriptionListKeys,
  subscriptionListPartition,
  TTL_ATTRIBUTE,
  tokenExpiryKeys,
  tokenKey,
  transactionKey,
  utcIso,
} from "../table/billing-table";
import { DEFAULT_LOOKBACK_HOURS, listDueEntries } from "../table/due-index";
import {
  conditionally,
  type Item,
  itemsOfEntries,
  queriesBelow,
  queryPages,
  type TableContext,
} from "../table/dynamodb-table";
import {
  absent,
  absentOrEquals,
  buildUpdateExpression,
  type Condition,
  equals,
  exists,
  type UpdatePlan,
} from "../table/update-expression";
import { createDynamoDbDocumentStore } from "./dynamodb-documents";
import { logEvents, readEventLog } from "./dynamodb-event-log";
import {
  listPendingOutboxes,
  markDelivered,
  outboxAttributes,
  outboxPlan,
  readOutbox,
} from "./dynamodb-outbox";
import { createDynamoDbSettlementStore } from "./dynamodb-settlements";
import { linkCustomer, listPayingPlans, listSubscriptions } from "./dynamodb-subscription-list";

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
  /** Decides whether a de-duplication record has expired. Default: the system clock. */
  readonly clock?: Clock;
}

/**
 * The BillingRepository on the single-table design of billing-table.ts: single-item conditional writes only (no
 * transactions: the local emulator lacks them), Query and GetItem only (never Scan). Each index key is kept in step
 * with the field it derives from inside the same write, and so are the events a write announces (its outbox).
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
  const clock = options.clock ?? { now: () => new Date() };
  return {
    createSubscription: (subscription, events) => createSubscription(table, subscription, events),
    getSubscription: (id) => getRecord(table, subscriptionKey(id), subscriptionSchema),
    updateSubscription: (id, update) => updateSubscription(table, clock, id, update),
    listDue: (until) => listDueEntries(table, until),
    listExpiredCheckouts: (before) =>
      listOpenBefore(table, openCheckoutPartition, before, subscriptionSchema),
    listPendingCredits: (before) => listOpenBefore(table, openCreditPartition, before, subscriptionSchema),
    listSubscriptions: (query, page) => listSubscriptions(table, query, page),
    listPayingPlans: () => listPayingPlans(table),
    claimAttempt: (attempt, events) => claimAttempt(table, attempt, events),
    getAttempt: (key) => getRecord(table, attemptKey(key), chargeAttemptSchema),
    updateAttempt: (key, update) => updateAttempt(table, clock, key, update),
    listOpenAttempts: (before) => listOpenBefore(table, openPartition, before, chargeAttemptSchema),
    listAttempts: (id) => listAttempts(table, id),
    claimTransaction: (id, line) => claimTransaction(table, id, line),
    putToken: (token) => putToken(table, token),
    getToken: (id) => getRecord(table, tokenKey(id), tokenRecordSchema),
    updateToken: (id, update) => updateByStatus(table, tokenKey(id), update),
    createRefund: (refund) => createRefund(table, refund),
    getRefund: (id) => getRecord(table, refundKey(id), refundRecordSchema),
    updateRefund: (id, update) => updateRefund(table, clock, id, update),
    listRefunds: (id) => listRefunds(table, id),
    listOpenRefunds: (before) => listOpenBefore(table, openRefundPartition, before, refundRecordSchema),
    recordOnce: (key, expiresAt) => recordOnce(table, clock, key, expiresAt),
    forgetOnce: (key) => forgetOnce(table, key),
    listPendingOutboxes: (before) => listPendingOutboxes(table, before),
    readOutbox: (ref) => readOutbox(table, ref),
    markDelivered: (ref, eventIds, asRead) => markDelivered(table, ref, eventIds, asRead),
    logEvents: (events) => logEvents(table, events),
    readEventLog: (query) => readEventLog(table, query),
    ...createDynamoDbDocumentStore(table),
    ...createDynamoDbSettlementStore(table),
  };
}

async function getItem(table: TableContext, key: Item): Promise<Item | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

async function getRecord<T>(table: TableContext, key: Item, schema: z.ZodType<T>): Promise<T | undefined> {
  const item = await getItem(table, key);
  return item && schema.parse(recordOf(item));
}

/** Every record a query finds, all pages, parsed. */
async function queryRecords<T>(
  table: TableContext,
  query: QueryCommandInput,
  schema: z.ZodType<T>,
): Promise<T[]> {
  const records: T[] = [];
  for await (const items of queryPages(table.client, [query])) {
    records.push(...items.map((item) => schema.parse(recordOf(item))));
  }
  return records;
}

/** A Put that only creates: it fails its condition when the key is taken. */
function putNew(table: TableContext, item: Item): PutCommandInput {
  return { TableName: table.tableName, Item: item, ConditionExpression: "attribute_not_exists(pk)" };
}

/**
 * A create-only Put of `item` (stored under `key`): undefined when written, else the record in the way. AWS returns
 * that item with the failure; an emulator that ignores this costs one GetItem instead. Only for items never deleted,
 * so the item that failed the condition is still there.
 */
async function createOrFindExisting(table: TableContext, key: Item, item: Item): Promise<Item | undefined> {
  try {
    await table.client.send(
      new PutCommand({
        ...putNew(table, { ...item, ...key }),
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    );
    return undefined;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const existing = error.Item ? unmarshall(error.Item) : await getItem(table, key);
    if (!existing) throw new Error("the item that failed the create condition vanished");
    return recordOf(existing);
  }
}

/** One conditional UpdateItem on an existing item. */
function updateItem(table: TableContext, key: Item, plan: UpdatePlan): Promise<boolean> {
  const expression = buildUpdateExpression({ ...plan, conditions: [exists("pk"), ...plan.conditions] });
  return conditionally(() =>
    table.client.send(new UpdateCommand({ TableName: table.tableName, Key: key, ...expression })),
  );
}

async function createSubscription(
  table: TableContext,
  subscription: Subscription,
  events: readonly BillingEvent[] | undefined,
): Promise<boolean> {
  const { subscription_id: id, next_charge_at, updated_at, customer } = subscription;
  const due = next_charge_at === undefined ? {} : dueKeys(id, next_charge_at, updated_at, table.shards);
  const listed = subscriptionListKeys(subscription, subscription.status, table.shards);
  const { checkout_expires_at: expiresAt } = subscription;
  const open =
    subscription.status === "pending" && expiresAt !== undefined
      ? openCheckoutKeys(id, expiresAt, table.shards)
      : {};
  const key = subscriptionKey(id);
  const outbox = outboxAttributes(key, events, subscription.created_at, table.shards);
  const item = { ...subscription, ...key, ...due, ...listed, ...open, ...outbox };
  if (customer.external_id !== undefined) await linkCustomer(table, customer.external_id, subscription);
  return conditionally(() => table.client.send(new PutCommand(putNew(table, item))));
}

async function updateSubscription(
  table: TableContext,
  clock: Clock,
  id: string,
  update: SubscriptionUpdate,
): Promise<boolean> {
  const remove = update.remove ?? [];
  const { next_charge_at, updated_at } = update.set;
  const due = next_charge_at === undefined ? {} : dueKeys(id, next_charge_at, updated_at, table.shards);
  const dueRemoved = remove.includes("next_charge_at") ? ["due_pk", "due_sk"] : [];
  const { revision, ...fields } = update.expect;
  const expected = [
    ...Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => (value === null ? absent(name) : equals(name, value))),
    ...revisionCondition("revision", revision),
  ];
  const key = subscriptionKey(id);
  // A status change moves the subscription to that status's list partition, and a checkout leaving pending out of the
  // open index (it is pending only once, from its creation). A pending plan credit is in the open index while it waits
  // (only a running subscription has one, never a checkout). A new external_id is linked first.
  const status = update.set.status;
  const listed =
    status === undefined ? {} : { list_pk: subscriptionListPartition(status, shardOf(id, table.shards)) };
  const leftCheckout =
    status !== undefined && status !== "pending" && (update.expect.status ?? "pending") === "pending";
  const credit = update.set.pending_credit;
  const creditOpen = credit === undefined ? {} : openCreditKeys(id, credit.lease_until, table.shards);
  const unlisted = leftCheckout || remove.includes("pending_credit") ? ["open_pk", "open_sk"] : [];
  const externalId = update.set.customer?.external_id;
  if (externalId !== undefined) {
    const current = await getRecord(table, key, subscriptionSchema);
    if (current === undefined) return false;
    if (current.customer.external_id !== externalId) await linkCustomer(table, externalId, current);
  }
  return updateItem(table, key, {
    set: { ...update.set, ...due, ...listed, ...creditOpen },
    ...outboxPlan(key, update.events, updated_at ?? clock.now().toISOString(), table.shards),
    remove: [...remove, ...dueRemoved, ...unlisted],
    conditions: expected,
  });
}

function openIndexKeys(attempt: ChargeAttempt, shards: number) {
  return OPEN_ATTEMPT_STATUSES.includes(attempt.status)
    ? openKeys(attempt.subscription_id, attempt.order_id, attempt.lease_until, shards)
    : {};
}

/** The ledger index keys of a write that makes a charge or refund succeeded (at its updated_at, or now). */
function ledgerIndexKeys(
  table: TableContext,
  clock: Clock,
  line: { readonly kind: "C" | "R"; readonly id: string },
  set: { readonly status?: string; readonly updated_at?: string },
) {
  if (set.status !== "succeeded") return {};
  return ledgerKeys(line.kind, line.id, set.updated_at ?? clock.now().toISOString(), table.shards);
}

async function claimAttempt(
  table: TableContext,
  attempt: ChargeAttempt,
  events: readonly BillingEvent[] | undefined,
): Promise<ClaimResult> {
  const ledger =
    attempt.status === "succeeded" ? ledgerKeys("C", attempt.order_id, attempt.updated_at, table.shards) : {};
  const key = attemptKey(attempt);
  const outbox = outboxAttributes(key, events, attempt.updated_at, table.shards);
  const item = { ...attempt, ...openIndexKeys(attempt, table.shards), ...ledger, ...outbox };
  const existing = await createOrFindExisting(table, key, item);
  return existing ? { claimed: false, existing: chargeAttemptSchema.parse(existing) } : { claimed: true };
}

/**
 * The expected status (and lease) make the write a compare-and-set. They also give the attempt's state after the
 * write without reading it, so the open index keys are set or removed in the same UpdateItem. An expected
 * refund_revision serialises the refunds' holds on the charge; an attempt never refunded has none and counts as 0.
 */
function updateAttempt(
  table: TableContext,
  clock: Clock,
  key: AttemptKey,
  update: AttemptUpdate,
): Promise<boolean> {
  const { expect, set } = update;
  const remove = update.remove ?? [];
  const status = set.status ?? expect.status;
  const leaseUntil = remove.includes("lease_until") ? undefined : (set.lease_until ?? expect.lease_until);
  const open = OPEN_ATTEMPT_STATUSES.includes(status);
  const index = open ? openKeys(key.subscription_id, orderIdFor(key), leaseUntil, table.shards) : {};
  const leaseCondition =
    expect.lease_until === undefined ? absent("lease_until") : equals("lease_until", expect.lease_until);
  const ledger = ledgerIndexKeys(table, clock, { kind: "C", id: orderIdFor(key) }, set);
  const itemKey = attemptKey(key);
  return updateItem(table, itemKey, {
    set: { ...set, ...index, ...ledger },
    ...outboxPlan(itemKey, update.events, set.updated_at ?? clock.now().toISOString(), table.shards),
    remove: open ? remove : [...remove, "open_pk", "open_sk"],
    conditions: [
      equals("status", expect.status),
      leaseCondition,
      ...revisionCondition("refund_revision", expect.refund_revision),
      ...revisionCondition("dispute.revision", expect.dispute_revision),
      ...numberCondition("invoice_number", expect.invoice_number),
    ],
  });
}

/** A document number's expectation (billing-repository.ts): null, none yet; a number, none or that one. */
function numberCondition(attribute: string, expected: string | null | undefined): Condition[] {
  if (expected === undefined) return [];
  return [expected === null ? absent(attribute) : absentOrEquals(attribute, expected)];
}

/** A revision counter's compare-and-set; 0 matches an item that never had one. */
function revisionCondition(attribute: string, revision: number | undefined): Condition[] {
  if (revision === undefined) return [];
  return [revision === 0 ? absent(attribute) : equals(attribute, revision)];
}

/**
 * The records of one kind of partition of the open index (open attempts, open refunds, pending checkouts) whose sort
 * key — a lease, or a checkout's end — is before `before`. The index holds keys only and lags the table: each item is
 * read again (consistently), and kept only while it is still open with its sort key before `before`.
 */
async function* listOpenBefore<T>(
  table: TableContext,
  partition: (shard: number) => string,
  before: Date,
  schema: z.ZodType<T>,
): AsyncGenerator<readonly T[]> {
  const index = { name: OPEN_INDEX, partitionKey: "open_pk", sortKey: "open_sk", partition };
  const below = utcIso(before);
  for await (const entries of queryPages(table.client, queriesBelow(table, index, below))) {
    const items = await itemsOfEntries(table, entries, { consistent: true });
    const open = items.filter((item) => typeof item.open_sk === "string" && item.open_sk < below);
    if (open.length > 0) yield open.map((item) => schema.parse(recordOf(item)));
  }
}

function listAttempts(table: TableContext, subscriptionId: string): Promise<readonly ChargeAttempt[]> {
  const query = {
    TableName: table.tableName,
    KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
    ExpressionAttributeNames: { "#pk": "pk", "#sk": "sk" },
    ExpressionAttributeValues: { ":pk": subscriptionKey(subscriptionId).pk, ":prefix": ATTEMPT_SK_PREFIX },
    ConsistentRead: true,
  };
  return queryRecords(table, query, chargeAttemptSchema);
}

const transactionOwner = lazySchema(() =>
  z.object({
    subscription_id: z.string(),
    period: z.number().int(),
    attempt: z.number().int(),
  }),
);

/** A create-only Put naming the transaction's line; a lost create reads the line that holds it. */
async function claimTransaction(
  table: TableContext,
  transactionId: string,
  line: AttemptKey,
): Promise<{ readonly claimed: true } | { readonly claimed: false; readonly owner: AttemptKey }> {
  const owner = { subscription_id: line.subscription_id, period: line.period, attempt: line.attempt };
  const existing = await createOrFindExisting(table, transactionKey(transactionId), owner);
  if (!existing) return { claimed: true };
  const held = transactionOwner.parse(existing);
  const same =
    held.subscription_id === owner.subscription_id &&
    held.period === owner.period &&
    held.attempt === owner.attempt;
  return same ? { claimed: true } : { claimed: false, owner: held };
}

/**
 * Creates the token, or overwrites it while it is still active: storing the same token again (a retried
 * registration) is harmless, and never turns a revoked or expired token back into an active one; such a store is
 * silently dropped.
 */
async function putToken(table: TableContext, token: TokenRecord): Promise<void> {
  await conditionally(() =>
    table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...token, ...tokenKey(token.token_id), ...tokenExpiryKeys(token, table.shards) },
        ConditionExpression: "attribute_not_exists(#pk) OR #status = :active",
        ExpressionAttributeNames: { "#pk": "pk", "#status": "status" },
        ExpressionAttributeValues: { ":active": "active" },
      }),
    ),
  );
}

/** Tokens: a compare-and-set on the status, one UpdateItem. */
function updateByStatus(table: TableContext, key: Item, update: TokenUpdate): Promise<boolean> {
  return updateItem(table, key, {
    set: update.set,
    remove: [],
    conditions: [equals("status", update.expect.status)],
  });
}

/**
 * A refund's compare-and-set on its status (and lease, when expected); the write that makes it succeeded also enters
 * it in the ledger index. An open refund is in the open index under its lease; the write that closes it leaves it.
 */
function updateRefund(table: TableContext, clock: Clock, id: string, update: RefundUpdate): Promise<boolean> {
  const { expect, set } = update;
  const remove = update.remove ?? [];
  const ledger = ledgerIndexKeys(table, clock, { kind: "R", id }, set);
  const key = refundKey(id);
  const occurredAt = set.updated_at ?? clock.now().toISOString();
  const open = OPEN_REFUND_STATUSES.includes(set.status ?? expect.status);
  const leaseUntil = remove.includes("lease_until") ? undefined : (set.lease_until ?? expect.lease_until);
  // Without a new or expected lease the open keys stay as they are.
  const index = open && leaseUntil !== undefined ? openRefundKeys(id, leaseUntil, table.shards) : {};
  return updateItem(table, key, {
    set: { ...set, ...ledger, ...index },
    ...outboxPlan(key, update.events, occurredAt, table.shards),
    remove: open ? remove : [...remove, "open_pk", "open_sk"],
    conditions: [
      equals("status", expect.status),
      ...(expect.lease_until === undefined ? [] : [equals("lease_until", expect.lease_until)]),
      ...numberCondition("credit_note_number", expect.credit_note_number),
    ],
  });
}

async function createRefund(
  table: TableContext,
  refund: RefundRecord,
): Promise<{ readonly created: true } | { readonly created: false; readonly existing: RefundRecord }> {
  const open = OPEN_REFUND_STATUSES.includes(refund.status);
  const existing = await createOrFindExisting(table, refundKey(refund.refund_id), {
    ...refund,
    ...refundIndexKeys(refund),
    ...(open ? openRefundKeys(refund.refund_id, refund.lease_until, table.shards) : {}),
  });
  return existing ? { created: false, existing: refundRecordSchema.parse(existing) } : { created: true };
}

/**
 * Oldest first (then by refund_id). Listed by the index, so a refund just created may be missing (see
 * billing-table.ts); each one listed is read from the table as it is now.
 */
async function listRefunds(table: TableContext, subscriptionId: string): Promise<readonly RefundRecord[]> {
  const query = {
    TableName: table.tableName,
    IndexName: SUBSCRIPTION_INDEX,
    KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
    ExpressionAttributeNames: { "#pk": "sub_pk", "#sk": "sub_sk" },
    ExpressionAttributeValues: { ":pk": subscriptionKey(subscriptionId).pk, ":prefix": REFUND_SK_PREFIX },
  };
  const refunds: RefundRecord[] = [];
  for await (const entries of queryPages(table.client, [query])) {
    const items = await itemsOfEntries(table, entries, { consistent: true });
    refunds.push(...items.map((item) => refundRecordSchema.parse(recordOf(item))));
  }
  return refunds;
}

/**
 * One conditional Put. A record still in the table but past its expiry (TTL deletion is lazy) is overwritten as if
 * absent. Whole seconds, rounded so that a record never counts as expired before `expiresAt`.
 */
async function recordOnce(table: TableContext, clock: Clock, key: string, expiresAt: Date): Promise<boolean> {
  if (Number.isNaN(expiresAt.getTime())) throw new RangeError("expiresAt must be a valid date");
  return conditionally(() =>
    table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...dedupKey(key), [TTL_ATTRIBUTE]: Math.ceil(expiresAt.getTime() / 1000) },
        ConditionExpression: "attribute_not_exists(#pk) OR #expires < :now",
        ExpressionAttributeNames: { "#pk": "pk", "#expires": TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ":now": Math.floor(clock.now().getTime() / 1000) },
      }),
    ),
  );
}

/** Deletes a de-duplication record (whichever form dedupKey stored it under); absent is fine. */
async function forgetOnce(table: TableContext, key: string): Promise<void> {
  await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: dedupKey(key) }));
}
