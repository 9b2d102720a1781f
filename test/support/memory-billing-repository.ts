import { randomUUID } from "node:crypto";
import type { z } from "zod";
import {
  type BillingDocument,
  type DocumentKind,
  documentSchema,
  holderOf,
  parseDocumentNumber,
} from "../../functions/core/base/documents";
import { type BillingEvent, type OutboxEvent, outboxEventSchema } from "../../functions/core/base/events";
import {
  type AttemptKey,
  type ChargeAttempt,
  chargeAttemptSchema,
  OPEN_ATTEMPT_STATUSES,
  OPEN_REFUND_STATUSES,
  planSchema,
  type RefundRecord,
  refundRecordSchema,
  type Subscription,
  subscriptionSchema,
  type TokenRecord,
  tokenRecordSchema,
} from "../../functions/core/base/model";
import { PAYING_STATUSES } from "../../functions/core/base/plan-price";
import { meetsExpectation } from "../../functions/core/machine/apply-input";
import {
  type AttemptUpdate,
  type BillingRepository,
  type ClaimResult,
  type DueEntry,
  type EventLogQuery,
  InvalidCursorError,
  type OutboxRef,
  type PaidPlan,
  type RefundUpdate,
  type SubscriptionQuery,
  type SubscriptionUpdate,
  type TokenUpdate,
} from "../../functions/core/ports/billing-repository";
import type { Clock } from "../../functions/core/ports/clock";
import type { DocumentQuery } from "../../functions/core/ports/document-store";
import {
  type PayoutDay,
  payoutDaySchema,
  type SettlementRecord,
  settlementRecordSchema,
} from "../../functions/core/ports/settlement-store";

// The BillingRepository in memory, for tests of the core that need no emulator. It passes the same contract suite
// as the DynamoDB repository (test/support/billing-repository-contract.ts): compare-and-set updates, create-only
// claims, the same orderings and the same expiry of de-duplication records.

export interface MemoryBillingRepositoryOptions {
  /** Entries per page of listDue and listOpenAttempts. Default 100. */
  readonly pageSize?: number;
  /** Decides whether a de-duplication record has expired. Default: the system clock. */
  readonly clock?: Clock;
}

/** A stored copy: what a write stores is what a later read returns, undefined fields dropped as DynamoDB does. */
function stored<T>(record: T): T {
  return JSON.parse(JSON.stringify(record)) as T;
}

/** A stored record as a read returns it: a copy, through its schema (as the DynamoDB repository parses items). */
function copyOf<T>(schema: z.ZodType<T>, record: T): T {
  return schema.parse(stored(record));
}

function read<T>(schema: z.ZodType<T>, record: T | undefined): T | undefined {
  return record === undefined ? undefined : copyOf(schema, record);
}

function withRemoved<T extends object>(record: T, set: object, remove: readonly string[]): T {
  const next: Record<string, unknown> = { ...(record as Record<string, unknown>), ...set };
  for (const field of remove) delete next[field];
  return stored(next) as T;
}

const instant = (iso: string) => Date.parse(iso);

/** An open record (in one of `statuses`) whose lease ended before `before`: what the open index lists. */
const leaseEndedBefore =
  <S extends string>(statuses: readonly S[], before: Date) =>
  (record: { readonly status: S; readonly lease_until?: string }) =>
    statuses.includes(record.status) &&
    record.lease_until !== undefined &&
    instant(record.lease_until) < before.getTime();
/** The order of a DynamoDB sort key (UTF-8 bytes; code units agree for the ids we write). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const attemptId = ({ subscription_id, period, attempt }: AttemptKey) =>
  `${subscription_id}#${period}#${attempt}`;

function* pagesOf<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

/** A document number's expectation (billing-repository.ts): null, none yet; a number, none or that one. */
const numberAllowed = (held: string | undefined, expected: string | null | undefined) =>
  expected === undefined || held === undefined || held === expected;

/** A subscription's documents newest first: by issue instant, then number. */
const newestFirst = (a: BillingDocument, b: BillingDocument) =>
  byteOrder(b.issued_at, a.issued_at) || byteOrder(b.number, a.number);
/** All documents: by prefix, then sequence, both descending (as the table's listing reads them). */
const lastNumberedFirst = (a: BillingDocument, b: BillingDocument) =>
  byteOrder(b.prefix, a.prefix) || b.sequence - a.sequence;

export class MemoryBillingRepository implements BillingRepository {
  /** Documents by kind and prefix, each sequence's document with the holder it was numbered for. */
  private readonly documents = new Map<string, Map<number, BillingDocument>>();
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly attempts = new Map<string, ChargeAttempt>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly refunds = new Map<string, RefundRecord>();
  /** De-duplication keys and their expiry in epoch seconds (as the table's TTL attribute holds it). */
  private readonly deliveries = new Map<string, number>();
  /** Pending events by outbox (a subscription's or an attempt's), oldest first. */
  private readonly outboxes = new Map<OutboxRef, OutboxEvent[]>();
  /** Delivered events kept for replay, by event_id. */
  private readonly eventLog = new Map<string, OutboxEvent>();
  /** Every event any write put in an outbox, in write order, delivered or not. */
  readonly written: OutboxEvent[] = [];
  /** Settlements by subscription and transaction; payout days by remittance date. */
  private readonly settlements = new Map<string, SettlementRecord>();
  private readonly payoutDays = new Map<string, PayoutDay>();
  private readonly pageSize: number;
  private readonly clock: Clock;

  constructor(options: MemoryBillingRepositoryOptions = {}) {
    this.pageSize = options.pageSize ?? 100;
    this.clock = options.clock ?? { now: () => new Date() };
    // Copyable with `...` like the DynamoDB repository (a plain object), which wrappers such as observeCharges and
    // the crash injection do: every method is an own property, bound to this instance.
    const self = this as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(MemoryBillingRepository.prototype)) {
      const method = self[name];
      if (name !== "constructor" && typeof method === "function") self[name] = method.bind(this);
    }
  }

  async createSubscription(subscription: Subscription, events?: readonly BillingEvent[]) {
    if (this.subscriptions.has(subscription.subscription_id)) return false;
    this.subscriptions.set(subscription.subscription_id, stored(subscription));
    this.announce(`sub:${subscription.subscription_id}`, events, subscription.created_at);
    return true;
  }

  async getSubscription(id: string) {
    return read(subscriptionSchema, this.subscriptions.get(id));
  }

  async updateSubscription(id: string, { expect, set, remove = [], events }: SubscriptionUpdate) {
    const current = this.subscriptions.get(id);
    if (!current) return false;
    if (!meetsExpectation(current, expect)) return false;
    if (expect.revision !== undefined && (current.revision ?? 0) !== expect.revision) return false;
    this.subscriptions.set(id, withRemoved(current, set, remove));
    this.announce(`sub:${id}`, events, set.updated_at);
    return true;
  }

  /** Oldest first; the cursor is the offset of the next page (opaque to callers, as the table's). */
  async listSubscriptions(
    query: SubscriptionQuery,
    page: { readonly limit: number; readonly cursor?: string },
  ) {
    const matching = [...this.subscriptions.values()]
      .filter((subscription) => query.status === undefined || subscription.status === query.status)
      .filter(
        (subscription) =>
          query.external_id === undefined || subscription.customer.external_id === query.external_id,
      )
      .sort((a, b) =>
        byteOrder(`${a.created_at}#${a.subscription_id}`, `${b.created_at}#${b.subscription_id}`),
      );
    const offset =
      page.cursor === undefined ? 0 : Number(Buffer.from(page.cursor, "base64url").toString("utf8"));
    if (!Number.isInteger(offset) || offset < 0)
      throw new InvalidCursorError("is not a cursor of this listing");
    const end = offset + page.limit;
    return {
      subscriptions: matching
        .slice(offset, end)
        .map((subscription) => copyOf(subscriptionSchema, subscription)),
      ...(end < matching.length ? { cursor: Buffer.from(String(end)).toString("base64url") } : {}),
    };
  }

  async *listDue(until: Date): AsyncGenerator<readonly DueEntry[]> {
    const due = [...this.subscriptions.values()]
      .filter((s) => s.next_charge_at !== undefined && instant(s.next_charge_at) <= until.getTime())
      .map(({ subscription_id, period }) => ({ subscription_id, period }));
    yield* pagesOf(due, this.pageSize);
  }

  async *listExpiredCheckouts(before: Date): AsyncGenerator<readonly Subscription[]> {
    const expired = [...this.subscriptions.values()].filter(
      (s) =>
        s.status === "pending" &&
        s.checkout_expires_at !== undefined &&
        instant(s.checkout_expires_at) < before.getTime(),
    );
    yield* pagesOf(
      expired.map((subscription) => copyOf(subscriptionSchema, subscription)),
      this.pageSize,
    );
  }

  async *listPendingCredits(before: Date): AsyncGenerator<readonly Subscription[]> {
    const waiting = [...this.subscriptions.values()].filter(
      (s) => s.pending_credit !== undefined && instant(s.pending_credit.lease_until) < before.getTime(),
    );
    yield* pagesOf(
      waiting.map((subscription) => copyOf(subscriptionSchema, subscription)),
      this.pageSize,
    );
  }

  async *listPayingPlans(): AsyncGenerator<readonly PaidPlan[]> {
    const paying = [...this.subscriptions.values()].filter((s) => PAYING_STATUSES.has(s.status));
    yield* pagesOf(
      paying.map(({ plan }) => copyOf(planSchema, plan)),
      this.pageSize,
    );
  }

  async claimAttempt(attempt: ChargeAttempt, events?: readonly BillingEvent[]): Promise<ClaimResult> {
    const existing = this.attempts.get(attemptId(attempt));
    if (existing) return { claimed: false, existing: copyOf(chargeAttemptSchema, existing) };
    this.attempts.set(attemptId(attempt), stored(attempt));
    this.announce(`attempt:${attemptId(attempt)}`, events, attempt.updated_at);
    return { claimed: true };
  }

  async getAttempt(key: AttemptKey) {
    return read(chargeAttemptSchema, this.attempts.get(attemptId(key)));
  }

  async updateAttempt(key: AttemptKey, { expect, set, remove = [], events }: AttemptUpdate) {
    const current = this.attempts.get(attemptId(key));
    if (!current || current.status !== expect.status || current.lease_until !== expect.lease_until)
      return false;
    if (expect.refund_revision !== undefined && (current.refund_revision ?? 0) !== expect.refund_revision)
      return false;
    if (
      expect.dispute_revision !== undefined &&
      (current.dispute?.revision ?? 0) !== expect.dispute_revision
    ) {
      return false;
    }
    if (!numberAllowed(current.invoice_number, expect.invoice_number)) return false;
    this.attempts.set(attemptId(key), withRemoved(current, set, remove));
    this.announce(`attempt:${attemptId(key)}`, events, set.updated_at);
    return true;
  }

  async *listOpenAttempts(before: Date): AsyncGenerator<readonly ChargeAttempt[]> {
    const open = [...this.attempts.values()].filter(leaseEndedBefore(OPEN_ATTEMPT_STATUSES, before));
    yield* pagesOf(
      open.map((attempt) => copyOf(chargeAttemptSchema, attempt)),
      this.pageSize,
    );
  }

  async listAttempts(subscriptionId: string) {
    return [...this.attempts.values()]
      .filter((attempt) => attempt.subscription_id === subscriptionId)
      .sort((a, b) => a.period - b.period || a.attempt - b.attempt)
      .map((attempt) => copyOf(chargeAttemptSchema, attempt));
  }

  readonly transactions = new Map<string, AttemptKey>();

  async claimTransaction(transactionId: string, line: AttemptKey) {
    const owner = { subscription_id: line.subscription_id, period: line.period, attempt: line.attempt };
    const held = this.transactions.get(transactionId);
    if (held === undefined) this.transactions.set(transactionId, owner);
    const same = held === undefined || attemptId(held) === attemptId(owner);
    return same ? { claimed: true as const } : { claimed: false as const, owner: { ...held } };
  }

  /** Stores a token, or overwrites it while it is active: never revives a revoked or expired one. */
  async putToken(token: TokenRecord) {
    const current = this.tokens.get(token.token_id);
    if (current && current.status !== "active") return;
    this.tokens.set(token.token_id, stored(token));
  }

  async getToken(id: string) {
    return read(tokenRecordSchema, this.tokens.get(id));
  }

  async updateToken(id: string, { expect, set }: TokenUpdate) {
    const current = this.tokens.get(id);
    if (current?.status !== expect.status) return false;
    this.tokens.set(id, withRemoved(current, set, []));
    return true;
  }

  async createRefund(refund: RefundRecord) {
    const existing = this.refunds.get(refund.refund_id);
    if (existing) return { created: false as const, existing: copyOf(refundRecordSchema, existing) };
    this.refunds.set(refund.refund_id, stored(refund));
    return { created: true as const };
  }

  async getRefund(id: string) {
    return read(refundRecordSchema, this.refunds.get(id));
  }

  async updateRefund(id: string, { expect, set, remove = [], events }: RefundUpdate) {
    const current = this.refunds.get(id);
    if (current?.status !== expect.status) return false;
    if (expect.lease_until !== undefined && current.lease_until !== expect.lease_until) return false;
    if (!numberAllowed(current.credit_note_number, expect.credit_note_number)) return false;
    this.refunds.set(id, withRemoved(current, set, remove));
    this.announce(`refund:${id}`, events, set.updated_at);
    return true;
  }

  async *listOpenRefunds(before: Date): AsyncGenerator<readonly RefundRecord[]> {
    const open = [...this.refunds.values()].filter(leaseEndedBefore(OPEN_REFUND_STATUSES, before));
    yield* pagesOf(
      open.map((refund) => copyOf(refundRecordSchema, refund)),
      this.pageSize,
    );
  }

  async listRefunds(subscriptionId: string) {
    return [...this.refunds.values()]
      .filter((refund) => refund.subscription_id === subscriptionId)
      .sort((a, b) => instant(a.created_at) - instant(b.created_at) || byteOrder(a.refund_id, b.refund_id))
      .map((refund) => copyOf(refundRecordSchema, refund));
  }

  /** Whole seconds, as the table's TTL attribute: a record never counts as expired before `expiresAt`. */
  async recordOnce(key: string, expiresAt: Date) {
    if (Number.isNaN(expiresAt.getTime())) throw new RangeError("expiresAt must be a valid date");
    const expires = this.deliveries.get(key);
    if (expires !== undefined && expires >= Math.floor(this.clock.now().getTime() / 1000)) return false;
    this.deliveries.set(key, Math.ceil(expiresAt.getTime() / 1000));
    return true;
  }

  async forgetOnce(key: string) {
    this.deliveries.delete(key);
  }

  async *listPendingOutboxes(before: Date): AsyncGenerator<readonly OutboxRef[]> {
    const pending = [...this.outboxes]
      .filter(([, events]) => events[0] !== undefined && instant(events[0].occurred_at) <= before.getTime())
      .map(([ref]) => ref);
    yield* pagesOf(pending, this.pageSize);
  }

  async readOutbox(ref: OutboxRef) {
    return (this.outboxes.get(ref) ?? []).map((event) => copyOf(outboxEventSchema, event));
  }

  async markDelivered(ref: OutboxRef, eventIds: readonly string[]) {
    const remaining = (this.outboxes.get(ref) ?? []).filter((event) => !eventIds.includes(event.event_id));
    if (remaining.length > 0) this.outboxes.set(ref, remaining);
    else this.outboxes.delete(ref);
  }

  async logEvents(events: readonly OutboxEvent[]) {
    for (const event of events) this.eventLog.set(event.event_id, stored(event));
  }

  async *readEventLog(query: EventLogQuery): AsyncGenerator<readonly OutboxEvent[]> {
    const sortKey = (event: OutboxEvent) => `${new Date(event.occurred_at).toISOString()}#${event.event_id}`;
    const selected = [...this.eventLog.values()]
      .filter((event) =>
        "subscription_id" in query
          ? event.subscription_id === query.subscription_id
          : instant(event.occurred_at) >= query.from.getTime() &&
            instant(event.occurred_at) < query.to.getTime(),
      )
      .sort((a, b) => byteOrder(sortKey(a), sortKey(b)))
      .map((event) => copyOf(outboxEventSchema, event));
    yield* pagesOf(selected, this.pageSize);
  }

  /** A write's events enter its outbox with the write, each with its own id. */
  private announce(ref: OutboxRef, events: readonly BillingEvent[] = [], at?: string) {
    const occurred_at = new Date(at ?? this.clock.now()).toISOString();
    const stamped = events.map((event) => stored({ ...event, event_id: randomUUID(), occurred_at }));
    if (stamped.length === 0) return;
    this.outboxes.set(ref, [...(this.outboxes.get(ref) ?? []), ...stamped]);
    this.written.push(...stamped);
  }

  private sequenceOf(kind: DocumentKind, prefix: string): Map<number, BillingDocument> {
    const key = `${kind}#${prefix}`;
    const sequence = this.documents.get(key) ?? new Map<number, BillingDocument>();
    this.documents.set(key, sequence);
    return sequence;
  }

  async lastDocument(kind: DocumentKind, prefix: string) {
    const sequence = this.sequenceOf(kind, prefix);
    const last = Math.max(0, ...sequence.keys());
    return read(documentSchema, sequence.get(last));
  }

  async createDocument(document: BillingDocument) {
    const sequence = this.sequenceOf(document.kind, document.prefix);
    if (sequence.has(document.sequence)) return false;
    sequence.set(document.sequence, stored(document));
    return true;
  }

  async replaceDocument(document: BillingDocument, holder: string) {
    const sequence = this.sequenceOf(document.kind, document.prefix);
    const current = sequence.get(document.sequence);
    if (current === undefined || holderOf(current) !== holder) return false;
    sequence.set(document.sequence, stored(document));
    return true;
  }

  async voidDocument(kind: DocumentKind, number: string, holder: string) {
    const parsed = parseDocumentNumber(number);
    if (parsed === undefined) return;
    const sequence = this.sequenceOf(kind, parsed.prefix);
    const current = sequence.get(parsed.sequence);
    if (current !== undefined && holderOf(current) === holder)
      sequence.set(parsed.sequence, stored({ ...current, status: "void" }));
  }

  private findDocument(kind: DocumentKind, number: string): BillingDocument | undefined {
    const parsed = parseDocumentNumber(number);
    if (parsed === undefined) return undefined;
    const found = this.sequenceOf(kind, parsed.prefix).get(parsed.sequence);
    return found?.status === "finalized" ? read(documentSchema, found) : undefined;
  }

  async getInvoice(number: string) {
    const found = this.findDocument("invoice", number);
    return found?.kind === "invoice" ? found : undefined;
  }

  async getCreditNote(number: string) {
    const found = this.findDocument("credit_note", number);
    return found?.kind === "credit_note" ? found : undefined;
  }

  /** Finalized documents of a kind matching the query, newest first; the cursor is the offset of the next page. */
  private listDocuments(
    kind: DocumentKind,
    query: DocumentQuery,
    page: { readonly limit: number; readonly cursor?: string },
  ): { documents: BillingDocument[]; cursor?: string } {
    const matching = [...this.documents.entries()]
      .filter(([key]) => key.startsWith(`${kind}#`))
      .flatMap(([, sequence]) => [...sequence.values()])
      .filter((document) => document.status === "finalized")
      .filter((document) => query.subscription_ids?.includes(document.subscription_id) ?? true)
      .filter((document) => query.from === undefined || instant(document.issued_at) >= query.from.getTime())
      .filter((document) => query.to === undefined || instant(document.issued_at) < query.to.getTime())
      .sort(query.subscription_ids === undefined ? lastNumberedFirst : newestFirst);
    const offset = page.cursor === undefined ? 0 : Number(page.cursor);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new InvalidCursorError("not a cursor of this listing");
    const documents = matching
      .slice(offset, offset + page.limit)
      .map((document) => copyOf(documentSchema, document));
    const next = offset + page.limit;
    return next < matching.length ? { documents, cursor: String(next) } : { documents };
  }

  async listInvoices(query: DocumentQuery, page: { readonly limit: number; readonly cursor?: string }) {
    const { documents, cursor } = this.listDocuments("invoice", query, page);
    return { documents: documents.filter((document) => document.kind === "invoice"), cursor };
  }

  async listCreditNotes(query: DocumentQuery, page: { readonly limit: number; readonly cursor?: string }) {
    const { documents, cursor } = this.listDocuments("credit_note", query, page);
    return { documents: documents.filter((document) => document.kind === "credit_note"), cursor };
  }

  async recordSettlement(record: SettlementRecord) {
    const key = `${record.subscription_id}#${record.transaction_id}`;
    const kept = this.settlements.get(key);
    if (kept) return { recorded: false as const, remittance_date: kept.remittance_date };
    this.settlements.set(key, copyOf(settlementRecordSchema, record));
    return { recorded: true as const };
  }

  async listSettlements(subscriptionId: string) {
    return [...this.settlements.values()]
      .filter((record) => record.subscription_id === subscriptionId)
      .sort((a, b) => byteOrder(a.transaction_id, b.transaction_id))
      .map((record) => copyOf(settlementRecordSchema, record));
  }

  async settledTransactions(lines: readonly { subscription_id: string; transaction_id: string }[]) {
    return new Set(
      lines
        .filter((line) => this.settlements.has(`${line.subscription_id}#${line.transaction_id}`))
        .map((line) => line.transaction_id),
    );
  }

  async putPayoutDay(day: PayoutDay) {
    if (day.status === "expected" && this.payoutDays.get(day.remittance_date)?.status === "settled") return;
    this.payoutDays.set(day.remittance_date, copyOf(payoutDaySchema, day));
  }

  async listPayoutDays(from: string, to: string) {
    return [...this.payoutDays.values()]
      .filter((day) => day.remittance_date >= from && day.remittance_date <= to)
      .sort((a, b) => byteOrder(a.remittance_date, b.remittance_date));
  }
}
