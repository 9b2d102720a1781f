import type { BillingEvent, OutboxEvent } from "../base/events";
import type {
  AttemptKey,
  AttemptStatus,
  ChargeAttempt,
  Customer,
  RefundRecord,
  Subscription,
  SubscriptionStatus,
  TokenRecord,
} from "../base/model";
import type { Failure, GatewayOutcome } from "../base/outcome";

// What the billing core needs from the outside world. Adapters live in functions/adapters/; tests may pass fakes.

export interface Clock {
  now(): Date;
}

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
  | "pending_plan_order";

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

export interface BillingRepository {
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

  /** Stores a token; storing the same token again is harmless. */
  putToken(token: TokenRecord): Promise<void>;
  getToken(tokenId: string): Promise<TokenRecord | undefined>;
  updateToken(tokenId: string, update: TokenUpdate): Promise<boolean>;

  /** Writes a new refund only if its refund_id is unused: the claim on the refund. */
  createRefund(
    refund: RefundRecord,
  ): Promise<{ readonly created: true } | { readonly created: false; readonly existing: RefundRecord }>;
  getRefund(refundId: string): Promise<RefundRecord | undefined>;
  updateRefund(refundId: string, update: RefundUpdate): Promise<boolean>;
  listRefunds(subscriptionId: string): Promise<readonly RefundRecord[]>;
  /** Open refunds (pending, unknown) whose lease ended before `before`, page by page. */
  listOpenRefunds(before: Date): AsyncIterable<readonly RefundRecord[]>;

  /**
   * De-duplication of deliveries (callbacks, webhooks): true the first time a key is seen, false after. The record
   * expires (TTL) after `expiresAt`, so replays older than that must be rejected by other means (timestamps).
   */
  recordOnce(key: string, expiresAt: Date): Promise<boolean>;
  /** Removes a de-duplication record, so that the delivery it stood for is taken again (its hand-over failed). */
  forgetOnce(key: string): Promise<void>;

  /**
   * Outboxes holding events not yet delivered whose oldest such event occurred before `before`, page by page (from
   * a sparse index: eventually consistent, so the caller reads each outbox again).
   */
  listPendingOutboxes(before: Date): AsyncIterable<readonly OutboxRef[]>;
  /** The events an outbox still holds, oldest first (empty when delivered or gone). */
  readOutbox(ref: OutboxRef): Promise<readonly OutboxEvent[]>;
  /** Takes delivered events out of their outbox; ids it no longer holds are ignored. */
  markDelivered(ref: OutboxRef, eventIds: readonly string[]): Promise<void>;
  /** Keeps delivered events for replay, for a retention: once per event_id, however often logged. */
  logEvents(events: readonly OutboxEvent[]): Promise<void>;
  /**
   * Logged events, page by page: one subscription's in the order they occurred, or those that occurred in
   * [from, to) (ordered within a page only).
   */
  readEventLog(query: EventLogQuery): AsyncIterable<readonly OutboxEvent[]>;
}

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
  readonly expect: { readonly status: RefundRecord["status"]; readonly lease_until?: string };
  readonly set: Partial<Omit<RefundRecord, "refund_id" | "subscription_id" | "order_id" | "created_at">>;
  readonly remove?: readonly "lease_until"[];
  /** What the change announces: written to the refund's outbox in the same conditional write, or not at all. */
  readonly events?: readonly BillingEvent[];
}

/** One unit of work of the charge run: charge this subscription's period. Ids only, never card data. */
export interface ChargeMessage {
  readonly subscription_id: string;
  readonly period: number;
}

export interface ChargeQueue {
  /** Sends in batches (SendMessageBatch); resolves when every message is accepted. */
  send(messages: readonly ChargeMessage[]): Promise<void>;
}

/** The bus: delivers events at least once; an error means some may not have been delivered. */
export interface EventPublisher {
  publish(events: readonly OutboxEvent[]): Promise<void>;
}

export interface RebillRequest {
  readonly order_id: string;
  readonly token_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly customer: Customer;
}

export interface RebillResult {
  readonly transaction_id?: string;
}

/**
 * What retrieve by order_id found: `none` means no transaction exists for the order; `awaiting_deposit` a virtual
 * account not yet paid; `paid` a sale; `authorized` an authorisation; `refunded` a sale refunded (in part or whole)
 * since.
 */
export interface OrderLookup {
  readonly state: "paid" | "authorized" | "awaiting_deposit" | "none" | "refunded";
  readonly transaction_id?: string;
  /** The transaction's amount and currency, as the gateway answered them. */
  readonly amount?: string;
  readonly currency?: string;
}

/** What retrieve by refund_id found: the refund, or none under that id. */
export type RefundLookup =
  | { readonly found: true; readonly refund_transaction_id?: string }
  | { readonly found: false };

/** The gateway as the charge engine sees it. */
export interface ChargeGateway {
  rebill(request: RebillRequest): Promise<GatewayOutcome<RebillResult>>;
  /** Cancel F or P of a charge; the engine refunds a card verification that its sweep found paid. */
  refund(request: RefundRequest): Promise<GatewayOutcome<RefundResult>>;
  /** Looks a refund up by its refund_id (with its charge's order, transaction, amount and currency). */
  findRefund(refund: {
    readonly refund_id: string;
    readonly transaction_id: string;
    readonly order_id: string;
    readonly amount: string;
    readonly currency: string;
  }): Promise<GatewayOutcome<RefundLookup>>;
  /** Deletes a stored token: it can never be charged again. */
  deleteToken(tokenId: string): Promise<GatewayOutcome<unknown>>;
  findOrder(order: {
    readonly order_id: string;
    readonly amount: string;
    readonly currency: string;
  }): Promise<GatewayOutcome<OrderLookup>>;
}

/** Card data as the customer typed it: in memory for one request, never stored, queued or logged. */
export interface CardDetails {
  readonly number: string;
  /** YYYYMM */
  readonly expiry: string;
  readonly cvc: string;
}

export interface CardPaymentRequest {
  readonly order_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly customer: Customer;
  readonly card: CardDetails;
  /** token: ask for a token_id to re-bill; recurring: register a gateway-managed plan. */
  readonly billing: "token" | "recurring";
  /** For gateway-managed recurring: the plan the gateway charges from `first_charge_at`'s day. */
  readonly recurring?: RecurringRegistration;
}

/** A gateway-managed plan registered with the first payment (card payment or payment window). */
export interface RecurringRegistration {
  readonly amount: string;
  readonly interval_months: number;
  /** When the gateway's first charge of the plan falls due (an ISO instant; the gateway's day of it is sent). */
  readonly first_charge_at: string;
  readonly notify_url: string;
}

/** A payment window (ready, transaction_type PAYMENT) that pays period 0 and creates the token or the plan. */
export interface WindowRequest {
  readonly order_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly customer: Customer;
  readonly billing: "token" | "recurring";
  readonly recurring?: RecurringRegistration;
  /** Our status_url intake: the only place the result is trusted (after verify). */
  readonly status_url: string;
  /** The merchant's page the customer's browser returns to. */
  readonly return_url: string;
  /** Language of the window; the gateway adapter's default when absent. */
  readonly lang?: string;
}

/** How a page opens the window: the script it loads and what it passes it, exactly as the gateway adapter prepared. */
export interface WindowLaunch {
  readonly sdk_url: string;
  readonly request_pay: Readonly<Record<string, unknown>>;
}

export interface WindowPrepared {
  /** Integrity key the merchant's page passes unchanged to the window SDK. */
  readonly fgkey: string;
  readonly launch: WindowLaunch;
}

export interface CardPaymentResult {
  readonly transaction_id: string;
  readonly token_id?: string;
  readonly recurring_id?: string;
  readonly card?: { readonly first4: string; readonly last4: string };
}

export interface RefundRequest {
  readonly transaction_id: string;
  readonly order_id: string;
  readonly refund_id: string;
  readonly type: "F" | "P";
  readonly amount: string;
  /** The charge's original amount and its refundable balance before this refund. */
  readonly original_amount: string;
  readonly balance: string;
  readonly currency: string;
  readonly reason: string;
}

export interface RefundResult {
  readonly refund_transaction_id: string;
}

/** A window result the gateway vouched for: the order it pays and what became of it. */
export interface WindowResult {
  readonly order_id: string;
  readonly currency: string;
  readonly amount: string;
  readonly outcome: WindowOutcome;
}

export type WindowOutcome =
  | {
      readonly kind: "paid";
      readonly transaction_id?: string;
      readonly token_id?: string;
      readonly recurring_id?: string;
      readonly card?: { readonly first4?: string; readonly last4?: string };
    }
  /** A virtual account was issued: the money comes with the deposit (retrieve settles it once paid). */
  | { readonly kind: "awaiting_deposit" }
  /** The gateway refused the payment; `code` is its code. */
  | { readonly kind: "refused"; readonly code: string; readonly failure: Failure }
  /** Approved, yet not a payment's outcome (an authorisation, a payer-authentication step): retrieve settles it. */
  | { readonly kind: "other"; readonly description: string };

/** Everything the billing core asks of the gateway beyond re-billing. */
export interface PaymentGateway extends ChargeGateway {
  payWithCard(request: CardPaymentRequest): Promise<GatewayOutcome<CardPaymentResult>>;
  adjustRecurring(recurringId: string, amount: string): Promise<GatewayOutcome<unknown>>;
  deleteRecurring(recurringId: string): Promise<GatewayOutcome<unknown>>;
  /** The customer's receipt page of a transaction; the payment's e-mail proves the caller. */
  receiptUrl(transactionId: string, email: string): Promise<GatewayOutcome<{ readonly receipt_url: string }>>;
  /** ready: prepares the payment window of a sign-up. */
  prepareWindow(request: WindowRequest): Promise<GatewayOutcome<WindowPrepared>>;
  /**
   * verify: success only when the gateway vouches for the status_url query string exactly as received; the value is
   * the result read under the documented names (invalid when it lacks one the checkout needs).
   */
  verifyWindowResult(query: string): Promise<GatewayOutcome<WindowResult>>;
  /** The order a status_url query names, read without trusting it (nothing is asked); undefined when it names none. */
  windowOrderOf(query: string): string | undefined;
}

/** The recurring_noti_url of a gateway-managed plan: our recurring webhook, naming the subscription and its secret. */
export type NotifyUrl = (subscription: Pick<Subscription, "subscription_id" | "notify_token">) => string;

export interface IdSource {
  /** A new subscription id, short enough for order_id = `<id>-<period>-<attempt>` to stay ≤ 30 characters. */
  subscriptionId(): string;
  /** The same, derived from a request's idempotency key: the same key always names the same subscription. */
  subscriptionIdFor(requestKey: string): string;
  /** A new refund_id (≤ 30 characters), for a refund asked without an idempotency key. */
  refundId(): string;
  /** A new secret for a gateway-managed plan's recurring_noti_url (unguessable, URL-safe). */
  notifyToken(): string;
  /** The refund_id of a request's idempotency key on a charge: the same key and charge always name the same refund. */
  refundIdFor(requestKey: string, orderId: string): string;
  /** A new webhook endpoint's id. */
  webhookEndpointId(): string;
  /** The same, derived from a request's idempotency key: a retried registration names the same endpoint. */
  webhookEndpointIdFor(requestKey: string): string;
  /** A new endpoint's signing secret (whsec_ and 32 random bytes). */
  webhookSecret(): string;
  /** A delivery's id, derived from what it delivers (the same source names the same delivery). */
  webhookDeliveryId(source: string): string;
}
