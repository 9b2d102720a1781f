import type { BillingEvent, OutboxEvent } from "../base/events";
import type {
  AttemptKey,
  AttemptStatus,
  ChargeAttempt,
  Plan,
  RefundRecord,
  Subscription,
  SubscriptionStatus,
  TokenRecord,
} from "../base/model";
import type { DocumentStore } from "./document-store";
import type { SettlementStore } from "./settlement-store";

/** Fields an update may require to still hold (compare-and-set): a lost race changes nothing. */
export interface SubscriptionExpectation {
  readonly period?: number;
  readonly attempt?: number;
  readonly status?: SubscriptionStatus;
  /** The last write's instant: a change decided on the subscription as read applies only if nothing wrote since. */
  readonly updated_at?: string;
  /** The revision as read (0: none yet): every transition expects it, so the events it announces follow the last. */
  readonly revision?: number;
  /** The scheduled cancel as read; null: none may be scheduled. */
  readonly cancel_at?: string | null;
  /** The stored token as read; null: none may be stored. */
  readonly token_id?: string | null;
  /** The gateway-managed plan as read; null: none may be registered. */
  readonly recurring_id?: string | null;
  /** The proration line of the plan change being paid for, as read; null: none may be pending. */
  readonly pending_plan_order?: string | null;
  /** The refund of the pending credit, as read; null: none may be pending. */
  readonly "pending_credit.refund_id"?: string | null;
}

export type RemovableSubscriptionField =
  | "next_charge_at"
  | "dunning"
  | "status_reason"
  | "recurring_id"
  | "metadata"
  | "cancel_at"
  | "resume_at"
  | "scheduled_plan"
  | "pending_plan"
  | "pending_plan_order"
  | "pending_credit"
  | "discount";

export interface SubscriptionUpdate {
  readonly expect: SubscriptionExpectation;
  readonly set: Partial<Omit<Subscription, "subscription_id" | "created_at">>;
  readonly remove?: readonly RemovableSubscriptionField[];
  /** What the change announces: written to the item's outbox in the same conditional write, or not at all. */
  readonly events?: readonly BillingEvent[];
}

export interface AttemptUpdate {
  /** The status (and, for an open attempt, the lease) the attempt must still have. */
  readonly expect: {
    readonly status: AttemptStatus;
    readonly lease_until?: string;
    /** Serialises the refunds' holds on one charge; 0 matches an attempt never refunded (no revision). */
    readonly refund_revision?: number;
    /** The dispute's revision it must still have; 0 matches an attempt never disputed (no dispute). */
    readonly dispute_revision?: number;
    /**
     * null: no invoice number may be written yet. A number: none may be written, or that one (the close of a paid line
     * carries the number its line was given, which the next invoice's numbering may have written first).
     */
    readonly invoice_number?: string | null;
  };
  readonly set: Partial<Omit<ChargeAttempt, keyof AttemptKey | "order_id" | "created_at">>;
  readonly remove?: readonly "lease_until"[];
  /** What the change announces: written to the item's outbox in the same conditional write, or not at all. */
  readonly events?: readonly BillingEvent[];
}

/** Names the item an outbox belongs to (a subscription or a charge attempt), as the repository encodes it. */
export type OutboxRef = string;

export type ClaimResult =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly existing: ChargeAttempt };

/** A subscription the due index says is due, with the period it is due for. */
export interface DueEntry {
  readonly subscription_id: string;
  readonly period: number;
}

/** The subscriptions and the indexes that find them. */
export interface SubscriptionStore {
  /** False when the id is taken. The new item announces `events` in the same write. */
  createSubscription(subscription: Subscription, events?: readonly BillingEvent[]): Promise<boolean>;
  getSubscription(subscriptionId: string): Promise<Subscription | undefined>;
  /** Applies the update only if every expected field still holds; false otherwise. */
  updateSubscription(subscriptionId: string, update: SubscriptionUpdate): Promise<boolean>;
  /**
   * One page of subscriptions from indexes (never a Scan): those in `status`, one customer's (`external_id`), or all;
   * `cursor` (from the page before) continues where it stopped. Order: stable, not by creation across partitions.
   */
  listSubscriptions(
    query: SubscriptionQuery,
    page: { readonly limit: number; readonly cursor?: string },
  ): Promise<SubscriptionPage>;
  /** Subscriptions with next_charge_at ≤ until, page by page, from the due index (never a scan). `until` is now. */
  listDue(until: Date): AsyncIterable<readonly DueEntry[]>;
  /**
   * Checkouts still pending whose checkout_expires_at passed before `before`, page by page, from an index (never a
   * scan; it lags the table, so the caller reads each again).
   */
  listExpiredCheckouts(before: Date): AsyncIterable<readonly Subscription[]>;
  /**
   * Subscriptions whose pending credit's lease passed before `before`, page by page, from an index (never a scan; it
   * lags the table, so the caller reads each again).
   */
  listPendingCredits(before: Date): AsyncIterable<readonly Subscription[]>;
  /**
   * The plans of the subscriptions paying now (active or past due), page by page, from the list index alone (never a
   * scan, no item read): what the daily revenue figures sum. It lags the table by the index's delay.
   */
  listPayingPlans(): AsyncIterable<readonly PaidPlan[]>;
}

/** What a subscription pays for, as its monthly recurring revenue counts it. */
export type PaidPlan = Pick<Plan, "amount" | "currency" | "interval_months" | "quantity">;

/** The ledger: one line per charge attempt, and which line each gateway transaction is credited to. */
export interface LedgerStore {
  /**
   * Writes a new attempt only if none exists for its key: the claim on the period. A line written closed announces
   * its `events` in the same write.
   */
  claimAttempt(attempt: ChargeAttempt, events?: readonly BillingEvent[]): Promise<ClaimResult>;
  getAttempt(key: AttemptKey): Promise<ChargeAttempt | undefined>;
  updateAttempt(key: AttemptKey, update: AttemptUpdate): Promise<boolean>;
  /** Open attempts (pending, retry, unknown) whose lease ended before `before`, page by page. */
  listOpenAttempts(before: Date): AsyncIterable<readonly ChargeAttempt[]>;
  /** The ledger of one subscription, oldest first. */
  listAttempts(subscriptionId: string): Promise<readonly ChargeAttempt[]>;

  /**
   * Names the one ledger line a gateway transaction is credited to (a gateway-run charge of a recurring plan): the
   * first claim wins, a later one learns the line that holds it. The same line claiming again is told it holds it.
   */
  claimTransaction(
    transactionId: string,
    line: AttemptKey,
  ): Promise<{ readonly claimed: true } | { readonly claimed: false; readonly owner: AttemptKey }>;
}

/** The gateway-issued tokens we keep (never a card number). */
export interface TokenStore {
  /** Stores a token; storing the same token again is harmless. */
  putToken(token: TokenRecord): Promise<void>;
  getToken(tokenId: string): Promise<TokenRecord | undefined>;
  updateToken(tokenId: string, update: TokenUpdate): Promise<boolean>;
}

export interface RefundStore {
  /** Writes a new refund only if its refund_id is unused: the claim on the refund. */
  createRefund(
    refund: RefundRecord,
  ): Promise<{ readonly created: true } | { readonly created: false; readonly existing: RefundRecord }>;
  getRefund(refundId: string): Promise<RefundRecord | undefined>;
  updateRefund(refundId: string, update: RefundUpdate): Promise<boolean>;
  listRefunds(subscriptionId: string): Promise<readonly RefundRecord[]>;
  /** Open refunds (pending, unknown) whose lease ended before `before`, page by page. */
  listOpenRefunds(before: Date): AsyncIterable<readonly RefundRecord[]>;
}

export interface OnceRecords {
  /**
   * De-duplication of deliveries (callbacks, webhooks): true the first time a key is seen, false after. The record
   * expires (TTL) after `expiresAt`, so replays older than that must be rejected by other means (timestamps).
   */
  recordOnce(key: string, expiresAt: Date): Promise<boolean>;
  /** Removes a de-duplication record, so that the delivery it stood for is taken again (its hand-over failed). */
  forgetOnce(key: string): Promise<void>;
}

/** The events each item announces, kept in its outbox until the bus has them. */
export interface OutboxStore {
  /**
   * Outboxes holding events not yet delivered whose oldest such event occurred before `before`, page by page (from
   * a sparse index: eventually consistent, so the caller reads each outbox again).
   */
  listPendingOutboxes(before: Date): AsyncIterable<readonly OutboxRef[]>;
  /** The events an outbox still holds, oldest first (empty when delivered or gone). */
  readOutbox(ref: OutboxRef): Promise<readonly OutboxEvent[]>;
  /**
   * Takes delivered events out of their outbox; ids it no longer holds are ignored. `asRead`, the whole outbox as
   * the caller last read it, spares a read when nothing changed it since.
   */
  markDelivered(ref: OutboxRef, eventIds: readonly string[], asRead?: readonly OutboxEvent[]): Promise<void>;
}

/** Delivered events, kept for replay. */
export interface EventLog {
  /** Keeps delivered events for replay, for a retention: once per event_id, however often logged. */
  logEvents(events: readonly OutboxEvent[]): Promise<void>;
  /**
   * Logged events, page by page: one subscription's in the order they occurred, or those that occurred in
   * [from, to) (ordered within a page only).
   */
  readEventLog(query: EventLogQuery): AsyncIterable<readonly OutboxEvent[]>;
}

/**
 * The billing table, every aggregate of it: what the composition builds. A function's services name the aggregates
 * it uses.
 */
export interface BillingRepository
  extends SubscriptionStore,
    LedgerStore,
    TokenStore,
    RefundStore,
    OnceRecords,
    OutboxStore,
    EventLog,
    DocumentStore,
    SettlementStore {}

/** A listing's cursor that the repository did not issue (or that belongs to another query's listing). */
export class InvalidCursorError extends Error {
  override readonly name = "InvalidCursorError";
}

export interface SubscriptionQuery {
  readonly status?: SubscriptionStatus;
  readonly external_id?: string;
}

export interface SubscriptionPage {
  readonly subscriptions: readonly Subscription[];
  /** Where the next page starts; absent on the last. */
  readonly cursor?: string;
}

/** Which logged events: one subscription's, or every event that occurred in [from, to). */
export type EventLogQuery = { readonly subscription_id: string } | { readonly from: Date; readonly to: Date };

export interface TokenUpdate {
  readonly expect: { readonly status: TokenRecord["status"] };
  readonly set: Partial<Pick<TokenRecord, "status" | "updated_at">>;
}

export interface RefundUpdate {
  /** The status, and for an open refund taken over by the sweep its lease, it must still have. */
  readonly expect: {
    readonly status: RefundRecord["status"];
    readonly lease_until?: string;
    /** As an attempt's invoice_number: null, none yet; a number, none or that one. */
    readonly credit_note_number?: string | null;
  };
  readonly set: Partial<Omit<RefundRecord, "refund_id" | "subscription_id" | "order_id" | "created_at">>;
  readonly remove?: readonly "lease_until"[];
  /** What the change announces: written to the refund's outbox in the same conditional write, or not at all. */
  readonly events?: readonly BillingEvent[];
}
