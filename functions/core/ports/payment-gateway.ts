import type { Billed, Customer, Subscription } from "../base/model";
import type { Failure, GatewayOutcome } from "../base/outcome";
import type { ChargeItem } from "../base/plan-price";

export interface RebillRequest {
  readonly order_id: string;
  readonly token_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly customer: Customer;
  /** A period charge's line: what it is for. */
  readonly item?: ChargeItem;
}

export interface RebillResult {
  readonly transaction_id?: string;
  /** The card was billed in its own currency (DCC). */
  readonly billed?: Billed;
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
  /** A period charge's line (none for a card's verification). */
  readonly item?: ChargeItem;
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
  /** A period charge's line (none for a card's verification). */
  readonly item?: ChargeItem;
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
  readonly billed?: Billed;
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
      readonly billed?: Billed;
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
