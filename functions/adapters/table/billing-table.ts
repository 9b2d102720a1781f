import { createHash } from "node:crypto";
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { BillingDocument, DocumentKind } from "../../core/base/documents";
import {
  type AttemptKey,
  ledgerChargeSchema,
  ledgerRefundSchema,
  type RefundRecord,
  type Subscription,
  type SubscriptionStatus,
} from "../../core/base/model";

/**
 * The billing table: one table, subscriptions and their charge attempts (the ledger) under the same partition.
 *
 *   subscription   pk SUB#<id>  sk SUB
 *                  + list_pk subs#<status>#<shard>, list_sk <created_at ISO>#<id>  (the list index: subscriptions by
 *                    status, for GET /v1/subscriptions; list_pk follows each status change)
 *                  + due_pk due#<yyyymmdd>#<shard>, due_sk <next_charge_at ISO>#<id>  while next_charge_at is set
 *                  + open_pk open-checkout#<shard>, open_sk <checkout_expires_at ISO>#<id>  while a checkout is pending
 *                    (the open index: the attempt sweep closes it once it has expired)
 *                  + open_pk open-credit#<shard>, open_sk <pending_credit.lease_until ISO>#<id>  while a plan credit
 *                    is pending (the attempt sweep sends it once its lease passed)
 *   charge attempt pk SUB#<id>  sk CHARGE#<period, 4 digits>#<attempt, 3 digits>
 *                  + open_pk open#<shard>, open_sk <lease_until ISO>#<order_id>  while pending, retry or unknown
 *                  + ledger_pk ledger#<yyyymmdd>#<shard>, ledger_sk <ISO>#C#<order_id>  from the write that makes
 *                    it succeeded on (the ledger index, read by reconciliation)
 *   outbox         on a subscription or charge attempt: outbox, the events its writes announced and not yet delivered
 *                  (oldest first) + outbox_pk outbox#<shard>, outbox_sk <oldest pending occurred_at ISO>#<pk>#<sk>
 *                  while it holds any (the outbox index, read by the outbox sweep; see dynamodb-outbox.ts)
 *   logged event   pk SUB#<id>  sk EVENT#<occurred_at ISO>#<event_id>  (event: the event as the bus took it; written
 *                  by its delivery, once per event_id however often delivered; expires_at = TTL, a retention after it
 *                  occurred) + list_pk events#<yyyymmdd>#<shard>, list_sk <occurred_at ISO>#<event_id> (the list
 *                  index: events by the day they occurred, read by replay)
 *   customer link  pk CUST#<external_id>  sk SUB#<created_at ISO>#<subscription_id>  (a customer's subscriptions;
 *                  written before the subscription takes that external_id, so none is ever missing; a link left by
 *                  an edit of external_id is stale, and readers check the subscription's own external_id)
 *   due watermark  pk META      sk DUE_WATERMARK  (due_from: the oldest day that may still hold due items)
 *   transaction    pk TXN#<transaction_id>  sk TXN  (subscription_id, period, attempt: the one ledger line a gateway-run
 *                  charge is credited to; written once, by a create-only Put)
 *   token          pk TOKEN#<token_id>  sk TOKEN
 *                  + list_pk expiry#<YYYYMM>#<shard>, list_sk <token_id>  when its card's expiry is known (the list
 *                    index: tokens by expiry month, read by the card-expiry mails)
 *   refund         pk REFUND#<refund_id>  sk REFUND
 *                  + sub_pk SUB#<subscription_id>, sub_sk REFUND#<created_at ISO>#<refund_id>
 *                  + open_pk open-refund#<shard>, open_sk <lease_until ISO>#<refund_id>  while pending or unknown
 *                  + ledger_pk, ledger_sk <ISO>#R#<refund_id>  likewise, once the refund succeeded
 *   coupon         pk COUPON  sk <coupon_id>  (a coupon of the merchant, all in one partition: listed by one Query,
 *                  ordered by id; times_redeemed, and for a capped coupon redeemed_by, the string set of the
 *                  subscriptions that redeemed it, so a retried redemption counts once: a capped coupon's item grows by
 *                  a subscription id per redemption, at most MAX_REDEMPTIONS_LIMIT of them)
 *   price          pk PRICE  sk <price_id>  (a price of the catalog, all in one partition: listed by one Query, ordered
 *                  by id, filtered by active; never a Scan)
 *   price lookup   pk PRICE_LOOKUP#<lookup_key>  sk PRICE_LOOKUP  (price_id: the price that holds the key; create-only,
 *                  reserved before the price takes the key and released after it gives it up)
 *   coupon code    pk COUPON_CODE#<code, upper case>  sk COUPON_CODE  (coupon_id: the coupon that holds the code;
 *                  create-only, written before the coupon, so no two coupons share a code whatever its case)
 *   document       pk DOC#<invoice|credit_note>#<prefix>  sk <sequence, 9 digits>  (an invoice or credit note: the
 *                  partition is its sequence, read newest first; written create-only, or over a void one or one whose
 *                  holder took another number, by a Put conditioned on its holder: order_id or refund_id)
 *                  + sub_pk SUB#<subscription_id>, sub_sk <INVOICE|CREDIT_NOTE>#<issued_at ISO>#<number>  while
 *                    finalized (a subscription's documents by issue time)
 *   prefixes       pk META  sk DOC_PREFIXES#<kind>  (prefixes: the string set of every prefix a document of the kind
 *                  was numbered under, added before its first document: what a listing of them all reads)
 *   settlement     pk SUB#<id>  sk SETTLEMENT#<transaction_id>  (a gateway movement paid out: the remittance date, the
 *                  gross, fees, VAT and net; written once by reconciliation, under the subscription of the ledger line
 *                  it pays out, so a line's settlement is one point read; no index)
 *   payout day     pk PAYOUT  sk <remittance_date YYYYMMDD>  (a day's payouts per currency, settled or expected: one
 *                  partition, a date range is one Query)
 *   dedup record   pk DEDUP#<key>  sk DEDUP  (or DEDUP#<sha256 hex>, DEDUP#SHA256: see dedupKey)
 *                  + expires_at <epoch seconds>: the table's TTL attribute (dedup and idempotency records)
 *   idempotency    pk IDEMPOTENCY  sk merchant-api#<SHA-256 of the Idempotency-Key>  (Powertools idempotency: status,
 *                  data = the kept response, validation = the request's digest, expires_at = TTL; see
 *                  dynamodb-idempotency-store.ts)
 *   webhook        pk WEBHOOK  sk ENDPOINT#<slot, 2 digits>  (a webhook endpoint of the merchant: its id, URL, event
 *   endpoint       types and signing secret; one of MAX_WEBHOOK_ENDPOINTS slots, each taken by a create-only Put, so the
 *                  cap holds under concurrent registrations; listed by one Query of the partition)
 *   webhook        pk WEBHOOK#<endpoint_id>  sk DELIVERY#<queued at ISO>#<delivery_id>  (one event for one endpoint:
 *   delivery       status, attempts, last HTTP status or error, next attempt; expires_at = TTL, a retention after it
 *                  was queued; an endpoint's recent deliveries are one Query, newest first)
 *
 * The due, open, ledger, outbox and event log indexes are sparse: an item is in them only while it carries their keys. Shards spread one
 * day's (or the open set's) writes over several index partitions; their count is fixed for the life of a table (items
 * written under another count would sit in partitions no reader visits).
 *
 * A refund is keyed by its own id, not under its subscription: the create-only Put then makes refund_id unique across
 * the table, and updateRefund, which has only the id, reaches it directly, so creating and updating take one write
 * each and no lookup. Listing by subscription goes through the by_subscription index (sparse: refunds only), whose
 * keys derive from fields a refund never changes and are written once, by the create. Like every GSI it is
 * eventually consistent: a refund just created may be missing from a listing for a moment.
 */

export const DUE_INDEX = "due";
export const OPEN_INDEX = "open";
export const SUBSCRIPTION_INDEX = "by_subscription";
export const LEDGER_INDEX = "ledger";
export const OUTBOX_INDEX = "outbox";
/** The list index: subscriptions by status, logged events by day (one sparse index, both kept small by shards). */
export const LIST_INDEX = "list";
/** The list attribute of an item's pending events: not part of its record. */
export const OUTBOX_ATTRIBUTE = "outbox";
export const DEFAULT_SHARDS = 16;
export const ATTEMPT_SK_PREFIX = "CHARGE#";
export const REFUND_SK_PREFIX = "REFUND#";
export const EVENT_SK_PREFIX = "EVENT#";
export const DUE_WATERMARK_KEY = { pk: "META", sk: "DUE_WATERMARK" } as const;
export const documentPrefixesKey = (kind: DocumentKind) => ({ pk: "META", sk: `DOC_PREFIXES#${kind}` });
export const documentPartition = (kind: DocumentKind, prefix: string) => `DOC#${kind}#${prefix}`;
export const documentKey = (kind: DocumentKind, prefix: string, sequence: number) => ({
  pk: documentPartition(kind, prefix),
  sk: padded(sequence, 9),
});
/** The by_subscription index's sort key prefix of a kind of document. */
export const documentSkPrefix = (kind: DocumentKind) => (kind === "invoice" ? "INVOICE#" : "CREDIT_NOTE#");
export const documentIndexKeys = (document: BillingDocument) => ({
  sub_pk: subscriptionKey(document.subscription_id).pk,
  sub_sk: `${documentSkPrefix(document.kind)}${utcIso(document.issued_at)}#${document.number}`,
});
export const WEBHOOK_ENDPOINTS_PARTITION = "WEBHOOK";
export const COUPONS_PARTITION = "COUPON";
export const PRICES_PARTITION = "PRICE";

export const priceKey = (priceId: string) => ({ pk: PRICES_PARTITION, sk: priceId });
export const priceLookupKey = (lookupKey: string) => ({
  pk: `PRICE_LOOKUP#${lookupKey}`,
  sk: "PRICE_LOOKUP",
});

export const couponKey = (couponId: string) => ({ pk: COUPONS_PARTITION, sk: couponId });
/** Codes match without regard to case: their item is keyed by the code in upper case. */
export const couponCodeKey = (code: string) => ({
  pk: `COUPON_CODE#${code.toUpperCase()}`,
  sk: "COUPON_CODE",
});
export const WEBHOOK_ENDPOINT_SK_PREFIX = "ENDPOINT#";
export const WEBHOOK_DELIVERY_SK_PREFIX = "DELIVERY#";

/** The attributes of a line the ledger index holds: its charge's and its refund's. */
const ledgerAttributes = () => [
  ...new Set([...Object.keys(ledgerChargeSchema.shape), ...Object.keys(ledgerRefundSchema.shape)]),
];

/** Attributes that key the table and its indexes: never part of a record. */
export const KEY_ATTRIBUTES: readonly string[] = [
  "pk",
  "sk",
  "due_pk",
  "due_sk",
  "open_pk",
  "open_sk",
  "sub_pk",
  "sub_sk",
  "ledger_pk",
  "ledger_sk",
  "outbox_pk",
  "outbox_sk",
  "list_pk",
  "list_sk",
];

/** The record an item holds: the item without its keys and its outbox, ready for its schema. */
export function recordOf(item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.includes(name) && name !== OUTBOX_ATTRIBUTE),
  );
}

/**
 * The TTL attribute (a number, epoch seconds). TTL is not part of CreateTable: the deployment enables it on this
 * attribute (UpdateTimeToLive); the local emulator has no TTL. Deletion is lazy (up to days late), so readers of
 * items carrying it compare it with the clock themselves.
 */
export const TTL_ATTRIBUTE = "expires_at";

/** Longer de-duplication keys (UTF-8 bytes) are stored by their SHA-256. */
export const MAX_DEDUP_KEY_BYTES = 200;

/**
 * The due index buckets by UTC day: a run reads (days since the watermark) × shards partitions, so a clock that jumps
 * a month (local mode, tests) costs about 30 × shards Queries, and a busy day is still spread over the shards.
 */
const DUE_BUCKET_MS = 86_400_000;

export function billingTableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: KEY_ATTRIBUTES.map((AttributeName) => ({ AttributeName, AttributeType: "S" })),
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: DUE_INDEX,
        KeySchema: [
          { AttributeName: "due_pk", KeyType: "HASH" },
          { AttributeName: "due_sk", KeyType: "RANGE" },
        ],
        // Just what a due entry needs, so the charge run never reads the subscriptions themselves.
        Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["subscription_id", "period"] },
      },
      {
        IndexName: OPEN_INDEX,
        KeySchema: [
          { AttributeName: "open_pk", KeyType: "HASH" },
          { AttributeName: "open_sk", KeyType: "RANGE" },
        ],
        // Keys only: the attempt sweep reads each listed item again (it lags the table), and an item's outbox or a
        // subscription's whole record never rides along. Only open attempts and refunds, pending checkouts and
        // pending credits are in the index (sparse).
        Projection: { ProjectionType: "KEYS_ONLY" },
      },
      {
        IndexName: SUBSCRIPTION_INDEX,
        KeySchema: [
          { AttributeName: "sub_pk", KeyType: "HASH" },
          { AttributeName: "sub_sk", KeyType: "RANGE" },
        ],
        // Keys only: the keys derive from fields a refund or a finalized document never changes, so the entry is
        // written once; a listing reads the items themselves (BatchGetItem), and no outbox rides in the index.
        Projection: { ProjectionType: "KEYS_ONLY" },
      },
      {
        IndexName: LEDGER_INDEX,
        KeySchema: [
          { AttributeName: "ledger_pk", KeyType: "HASH" },
          { AttributeName: "ledger_sk", KeyType: "RANGE" },
        ],
        // What reconciliation compares of a line, never its outbox or its refunds: an entry stays one write unit, and
        // the writes that change nothing of it (delivering its events, a refund's hold) do not rewrite it. Sparse:
        // succeeded lines only.
        Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ledgerAttributes() },
      },
      {
        IndexName: OUTBOX_INDEX,
        KeySchema: [
          { AttributeName: "outbox_pk", KeyType: "HASH" },
          { AttributeName: "outbox_sk", KeyType: "RANGE" },
        ],
        // The sweep reads each outbox from the table (consistently) anyway: the keys are all it needs here.
        Projection: { ProjectionType: "KEYS_ONLY" },
      },
      {
        IndexName: LIST_INDEX,
        KeySchema: [
          { AttributeName: "list_pk", KeyType: "HASH" },
          { AttributeName: "list_sk", KeyType: "RANGE" },
        ],
        // A subscription's keys and `plan` (the daily revenue figures sum the plans without reading the
        // subscriptions), so its updates (every renewal) write the index only when its status or its plan changes; a
        // logged event's keys only: its event carries the subscription's view, which a replay reads from the table.
        Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["plan"] },
      },
    ],
  };
}

export function subscriptionKey(subscriptionId: string) {
  return { pk: `SUB#${subscriptionId}`, sk: "SUB" };
}

/** Zero-padded so that the ledger sorts by period, then attempt. */
export function attemptKey({ subscription_id, period, attempt }: AttemptKey) {
  return {
    pk: `SUB#${subscription_id}`,
    sk: `${ATTEMPT_SK_PREFIX}${padded(period, 4)}#${padded(attempt, 3)}`,
  };
}

/** A webhook endpoint's place: one of the merchant's slots. */
export function webhookEndpointKey(slot: number) {
  return { pk: WEBHOOK_ENDPOINTS_PARTITION, sk: `${WEBHOOK_ENDPOINT_SK_PREFIX}${padded(slot, 2)}` };
}

export function webhookDeliveryPartition(endpointId: string): string {
  return `${WEBHOOK_ENDPOINTS_PARTITION}#${endpointId}`;
}

/** A webhook delivery under its endpoint, sorted by when it was queued. */
export function webhookDeliveryKey(delivery: {
  readonly endpoint_id: string;
  readonly created_at: string;
  readonly delivery_id: string;
}) {
  return {
    pk: webhookDeliveryPartition(delivery.endpoint_id),
    sk: `${WEBHOOK_DELIVERY_SK_PREFIX}${utcIso(delivery.created_at)}#${delivery.delivery_id}`,
  };
}

export function transactionKey(transactionId: string) {
  return { pk: `TXN#${transactionId}`, sk: "TXN" };
}

export function tokenKey(tokenId: string) {
  return { pk: `TOKEN#${tokenId}`, sk: "TOKEN" };
}

export const SETTLEMENT_SK_PREFIX = "SETTLEMENT#";

export function settlementKey(subscriptionId: string, transactionId: string) {
  return { pk: `SUB#${subscriptionId}`, sk: `${SETTLEMENT_SK_PREFIX}${transactionId}` };
}

export const PAYOUT_PARTITION = "PAYOUT";

export function payoutDayKey(remittanceDate: string) {
  return { pk: PAYOUT_PARTITION, sk: remittanceDate };
}

export function refundKey(refundId: string) {
  return { pk: `REFUND#${refundId}`, sk: "REFUND" };
}

/** The by_subscription index keys of a refund: its subscription's refunds sort oldest first, then by id. */
export function refundIndexKeys(refund: Pick<RefundRecord, "subscription_id" | "refund_id" | "created_at">) {
  return {
    sub_pk: subscriptionKey(refund.subscription_id).pk,
    sub_sk: `${REFUND_SK_PREFIX}${utcIso(refund.created_at)}#${refund.refund_id}`,
  };
}

/**
 * Any key fits. One longer than MAX_DEDUP_KEY_BYTES is stored by its SHA-256 (DynamoDB caps a partition key at 2048
 * bytes) under a sort key of its own, so a short key that happens to spell a digest never meets it. A key counts as
 * its UTF-8 encoding.
 */
export function dedupKey(key: string) {
  if (Buffer.byteLength(key, "utf8") <= MAX_DEDUP_KEY_BYTES) return { pk: `DEDUP#${key}`, sk: "DEDUP" };
  return { pk: `DEDUP#${createHash("sha256").update(key).digest("hex")}`, sk: "DEDUP#SHA256" };
}

function padded(value: number, digits: number): string {
  if (!Number.isInteger(value) || value < 0 || value >= 10 ** digits) {
    throw new RangeError(`key part must be an integer from 0 to ${10 ** digits - 1}`);
  }
  return String(value).padStart(digits, "0");
}

/** A stable shard of a subscription id: the same on every runtime and deployment. */
export function shardOf(subscriptionId: string, shards: number): number {
  return createHash("sha256").update(subscriptionId).digest().readUInt32BE(0) % shards;
}

/** Index sort keys use one fixed UTC form, whatever offset the record's instant was written with. */
export function utcIso(instant: string | Date): string {
  return new Date(instant).toISOString();
}

export function startOfDueBucket(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / DUE_BUCKET_MS) * DUE_BUCKET_MS);
}

export function addDueBuckets(bucket: Date, count: number): Date {
  return new Date(bucket.getTime() + count * DUE_BUCKET_MS);
}

export function duePartition(bucket: Date, shard: number): string {
  return `due#${utcIso(bucket).slice(0, 10).replaceAll("-", "")}#${shard}`;
}

/** The upper bound of due_sk for everything due at or before `until`. */
export function dueSortKeyUntil(until: Date): string {
  return `${utcIso(until)}#\uffff`;
}

/**
 * The due-index keys of a subscription. The bucket is the day of next_charge_at, but never a day before the write
 * itself (`writtenAt`, the record's updated_at): a next_charge_at already in the past (a subscription catching up on
 * periods) would otherwise land in a day the due watermark has moved past and never be listed. The sort key keeps
 * the real next_charge_at, so the entry is listed by every run whose `until` reaches both.
 */
export function dueKeys(
  subscriptionId: string,
  nextChargeAt: string,
  writtenAt: string | undefined,
  shards: number,
) {
  const dueAt = new Date(nextChargeAt);
  const bucketAt = writtenAt !== undefined && new Date(writtenAt) > dueAt ? new Date(writtenAt) : dueAt;
  return {
    due_pk: duePartition(startOfDueBucket(bucketAt), shardOf(subscriptionId, shards)),
    due_sk: `${utcIso(dueAt)}#${subscriptionId}`,
  };
}

export function openPartition(shard: number): string {
  return `open#${shard}`;
}

/** Open refunds have partitions of their own in the open index: the attempt sweep reads them apart. */
export function openRefundPartition(shard: number): string {
  return `open-refund#${shard}`;
}

/**
 * The open index keys of a refund while it is pending or unknown, sorted by its lease; sharded by its own id, which
 * every write of a refund has, so no write reads the refund first.
 */
export function openRefundKeys(refundId: string, leaseUntil: string | undefined, shards: number) {
  return {
    open_pk: openRefundPartition(shardOf(refundId, shards)),
    open_sk: `${leaseUntil === undefined ? "" : utcIso(leaseUntil)}#${refundId}`,
  };
}

/** Pending checkouts have partitions of their own in the open index, sorted by when they expire. */
export function openCheckoutPartition(shard: number): string {
  return `open-checkout#${shard}`;
}

/** The open index keys of a checkout while it is pending: what the attempt sweep lists once it has expired. */
export function openCheckoutKeys(subscriptionId: string, expiresAt: string, shards: number) {
  return {
    open_pk: openCheckoutPartition(shardOf(subscriptionId, shards)),
    open_sk: `${utcIso(expiresAt)}#${subscriptionId}`,
  };
}

/** Pending plan credits have partitions of their own in the open index, sorted by their lease. */
export function openCreditPartition(shard: number): string {
  return `open-credit#${shard}`;
}

/** The open index keys of a subscription while a plan credit is pending: what the attempt sweep lists past its lease. */
export function openCreditKeys(subscriptionId: string, leaseUntil: string, shards: number) {
  return {
    open_pk: openCreditPartition(shardOf(subscriptionId, shards)),
    open_sk: `${utcIso(leaseUntil)}#${subscriptionId}`,
  };
}

/** An open attempt without a lease sorts first: nothing holds it, so every attempt sweep may pick it up. */
export function openKeys(
  subscriptionId: string,
  orderId: string,
  leaseUntil: string | undefined,
  shards: number,
) {
  return {
    open_pk: openPartition(shardOf(subscriptionId, shards)),
    open_sk: `${leaseUntil === undefined ? "" : utcIso(leaseUntil)}#${orderId}`,
  };
}

/** What a ledger index entry is: a successful charge attempt or a successful refund. */
export type LedgerLineKind = "C" | "R";

export function ledgerPartition(day: Date, shard: number): string {
  return `ledger#${utcIso(day).slice(0, 10).replaceAll("-", "")}#${shard}`;
}

/**
 * The ledger index keys of a charge (by order_id) or refund (by refund_id) that succeeded at `at`: bucketed by UTC
 * day, spread over the shards, sorted by time. Written once, by the write that makes the record succeeded.
 */
export function ledgerKeys(kind: LedgerLineKind, id: string, at: string, shards: number) {
  return {
    ledger_pk: ledgerPartition(new Date(at), shardOf(id, shards)),
    ledger_sk: `${utcIso(at)}#${kind}#${id}`,
  };
}

export function outboxPartition(shard: number): string {
  return `outbox#${shard}`;
}

/** The outbox index keys of an item whose oldest pending event occurred at `since`. */
export function outboxKeys(key: { readonly pk: string; readonly sk: string }, since: string, shards: number) {
  return {
    outbox_pk: outboxPartition(shardOf(key.pk, shards)),
    outbox_sk: `${utcIso(since)}#${key.pk}#${key.sk}`,
  };
}

export function eventLogPartition(day: Date, shard: number): string {
  return `events#${utcIso(day).slice(0, 10).replaceAll("-", "")}#${shard}`;
}

/**
 * A logged event's item key and event log index keys: under its subscription (one Query lists a subscription's
 * events in the order they occurred), and by the UTC day it occurred, spread over the shards by subscription.
 */
export function loggedEventKeys(
  event: { readonly subscription_id: string; readonly event_id: string; readonly occurred_at: string },
  shards: number,
) {
  const at = utcIso(event.occurred_at);
  return {
    pk: subscriptionKey(event.subscription_id).pk,
    sk: `${EVENT_SK_PREFIX}${at}#${event.event_id}`,
    list_pk: eventLogPartition(new Date(at), shardOf(event.subscription_id, shards)),
    list_sk: `${at}#${event.event_id}`,
  };
}

export function tokenExpiryPartition(month: string, shard: number): string {
  return `expiry#${month}#${shard}`;
}

/** The list index keys of a token whose card's expiry (YYYYMM) is known, spread over the shards by subscription. */
export function tokenExpiryKeys(
  token: { readonly token_id: string; readonly subscription_id: string; readonly expiry?: string },
  shards: number,
) {
  if (token.expiry === undefined) return {};
  return {
    list_pk: tokenExpiryPartition(token.expiry, shardOf(token.subscription_id, shards)),
    list_sk: token.token_id,
  };
}

export function subscriptionListPartition(status: SubscriptionStatus, shard: number): string {
  return `subs#${status}#${shard}`;
}

/** The list index keys of a subscription in `status` (list_sk never changes: it is written once, at creation). */
export function subscriptionListKeys(
  subscription: Pick<Subscription, "subscription_id" | "created_at">,
  status: SubscriptionStatus,
  shards: number,
) {
  return {
    list_pk: subscriptionListPartition(status, shardOf(subscription.subscription_id, shards)),
    list_sk: `${utcIso(subscription.created_at)}#${subscription.subscription_id}`,
  };
}

export const CUSTOMER_LINK_SK_PREFIX = "SUB#";

export function customerLinkPartition(externalId: string): string {
  return `CUST#${externalId}`;
}

/** The customer link of a subscription that carries `externalId`. */
export function customerLinkKey(
  externalId: string,
  subscription: Pick<Subscription, "subscription_id" | "created_at">,
) {
  return {
    pk: customerLinkPartition(externalId),
    sk: `${CUSTOMER_LINK_SK_PREFIX}${utcIso(subscription.created_at)}#${subscription.subscription_id}`,
  };
}
