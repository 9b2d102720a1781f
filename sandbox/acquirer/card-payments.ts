import { createHash } from "node:crypto";
import type { CardBehaviour, CardSummary } from "../state/card-summary";
import { PAYMENT_COMPLETED_EVENT } from "../state/partner-store";
import type { OtherParam, PaymentRecord } from "../state/payment-store";
import type { TokenRecord } from "../state/token-store";
import type { AcquirerContext } from "./acquirer";
import { CARD_REFUSALS } from "./cards";
import { triggerChargeback } from "./chargebacks";
import { conversionFor } from "./currency-conversion";
import { DuplicateCall, type Refusal, SUCCESS_RESCODE, SUCCESS_RESMSG, TOKEN_REFUSALS } from "./result-codes";

/** Invented payment-method code of the virtual account: the order is REGISTERED until the deposit. */
export const VIRTUAL_ACCOUNT_METHOD = "P301";
/** The documented credit-card method code. */
export const CARD_METHOD = "P000";

/** The chargeback of a 4000000000000259 payment arrives this long after the sale, on the sandbox clock. */
export const CHARGEBACK_DELAY_MS = 24 * 60 * 60 * 1000;

/**
 * Where the money comes from. A customer-present card was typed into the window or sent encrypted; a token or a
 * recurring plan charges a stored card without the customer (merchant-initiated).
 */
export type FundingSource =
  | { readonly kind: "card"; readonly presented: { readonly card: CardSummary; readonly expiry: string } }
  | { readonly kind: "token"; readonly token: TokenRecord }
  | { readonly kind: "recurring"; readonly card: CardSummary }
  | { readonly kind: "virtual_account" }
  | { readonly kind: "wallet"; readonly paymentMethod?: string };

export interface Authorisation {
  readonly mid: string;
  /** A prepared order of this merchant. */
  readonly orderId: string;
  /** As recorded: PAYMENT, AUTHORIZE, REBILL, PAYMENT_PA, AUTHORIZE_PA or RECURRING. */
  readonly transactionType: string;
  /** SALE authorises and acquires; AUTH waits for capture. A virtual account is REGISTERED either way. */
  readonly capture: "SALE" | "AUTH";
  readonly currency: string;
  readonly amount: string;
  readonly source: FundingSource;
  /** The payer was authenticated (any window, or a PAYER_AUTH result): 4000000000003220 passes. */
  readonly payerAuthenticated: boolean;
  /** A refusal decided before the acquirer is asked (unique_token_id in a window). */
  readonly refusal?: Refusal;
  readonly email?: string;
  readonly otherParam?: OtherParam;
  readonly statusUrl?: string;
  readonly payerAuthId?: string;
  readonly recurringId?: string;
}

export interface Authorised {
  readonly payment: PaymentRecord;
  /** Absent when approved. */
  readonly refusal?: Refusal;
}

export function cardOf(source: FundingSource): CardSummary | undefined {
  switch (source.kind) {
    case "card":
      return source.presented.card;
    case "token":
      return source.token.card;
    case "recurring":
      return source.card;
    default:
      return undefined;
  }
}

function paymentMethodOf(source: FundingSource): string {
  if (source.kind === "virtual_account") return VIRTUAL_ACCOUNT_METHOD;
  if (source.kind === "wallet") return source.paymentMethod ?? CARD_METHOD;
  return CARD_METHOD;
}

/** What the card's test behaviour answers; merchant-initiated charges skip payer authentication. */
function cardRefusal(
  behaviour: CardBehaviour,
  merchantInitiated: boolean,
  payerAuthenticated: boolean,
): Refusal | undefined {
  switch (behaviour) {
    case "approve":
    case "chargeback":
      return undefined;
    case "decline_on_rebill":
      return merchantInitiated ? CARD_REFUSALS.decline_on_rebill : undefined;
    case "payer_auth_required":
      return merchantInitiated || payerAuthenticated ? undefined : CARD_REFUSALS.payer_auth_required;
    default:
      return CARD_REFUSALS[behaviour];
  }
}

/**
 * A token in use: revoked → TK02; deleted → TK03; expired, or its card's expiry month passed by the sandbox clock →
 * TK01.
 */
function tokenRefusal(ctx: AcquirerContext, token: TokenRecord): Refusal | undefined {
  if (token.status === "revoked") return TOKEN_REFUSALS.revoked;
  if (token.status === "deleted") return TOKEN_REFUSALS.deleted;
  const now = ctx.clock.now();
  if (token.status === "active" && token.cardExpiry >= ctx.ledger.date(now).slice(0, 6)) return undefined;
  ctx.ledger.tokens.setStatus(token.mid, token.tokenId, "expired", now);
  return TOKEN_REFUSALS.expired;
}

function refusalOf(ctx: AcquirerContext, input: Authorisation): Refusal | undefined {
  const { source } = input;
  switch (source.kind) {
    case "card":
      return cardRefusal(source.presented.card.behaviour, false, input.payerAuthenticated);
    case "token":
      return tokenRefusal(ctx, source.token) ?? cardRefusal(source.token.card.behaviour, true, true);
    case "recurring":
      return cardRefusal(source.card.behaviour, true, true);
    default:
      return undefined;
  }
}

/** A six-digit authorisation number, stable per order (the sandbox has no issuer to ask). */
function authCodeOf(mid: string, orderId: string): string {
  const digest = createHash("sha256").update(`${mid}:${orderId}`).digest();
  return String(digest.readUInt32BE(0) % 1_000_000).padStart(6, "0");
}

/**
 * Asks the (simulated) acquirer and records the order's one transaction: approved → SALE / AUTH / REGISTERED,
 * refused → NONE with the refusal's rescode, which burns the order id. An order that already has its transaction
 * answers EEEE. Side effects of an approved SALE follow (chargeback of the test card, partner event).
 */
export function authorise(ctx: AcquirerContext, input: Authorisation): Authorised {
  const refusal = input.refusal ?? refusalOf(ctx, input);
  const status = refusal ? "NONE" : input.source.kind === "virtual_account" ? "REGISTERED" : input.capture;
  const card = cardOf(input.source);
  const recorded = ctx.ledger.payments.recordTransaction(
    input.mid,
    input.orderId,
    {
      transactionType: input.transactionType,
      status,
      currency: input.currency,
      amount: input.amount,
      rescode: refusal?.rescode ?? SUCCESS_RESCODE,
      resmsg: refusal?.resmsg ?? SUCCESS_RESMSG,
      errcode: refusal?.errcode,
      paymentMethod: paymentMethodOf(input.source),
      authCode: refusal || !card ? undefined : authCodeOf(input.mid, input.orderId),
      card,
      tokenId: input.source.kind === "token" ? input.source.token.tokenId : undefined,
      recurringId: input.recurringId,
      payerAuthId: input.payerAuthId,
      email: input.email,
      otherParam: input.otherParam,
      statusUrl: input.statusUrl,
      foreign: refusal ? undefined : conversionFor(card, input.currency, input.amount),
    },
    ctx.clock.now(),
  );
  if (!recorded.ok) {
    if (recorded.error === "order_not_found") throw new Error("authorise needs a prepared order");
    throw new DuplicateCall("the order already has its transaction");
  }
  const payment = recorded.value;
  if (payment.status === "SALE") saleCompleted(ctx, payment);
  return refusal ? { payment, refusal } : { payment };
}

/**
 * A payment reached SALE (approved, captured, settled from AUTH, deposited): the partner PAYMENT_COMPLETED event
 * goes to every active subscription of the merchant, and the chargeback test card schedules its chargeback.
 */
export function saleCompleted(ctx: AcquirerContext, payment: PaymentRecord): void {
  const now = ctx.clock.now();
  if (payment.card?.behaviour === "chargeback") {
    ctx.scheduler.schedule(
      new Date(now.getTime() + CHARGEBACK_DELAY_MS),
      () => {
        triggerChargeback(ctx, payment.mid, payment.transactionId);
      },
      `chargeback ${payment.transactionId}`,
    );
  }
  const event = paymentCompletedEvent(payment, now);
  for (const subscription of ctx.ledger.partner.subscribersOf(payment.mid, PAYMENT_COMPLETED_EVENT)) {
    void ctx.deliver.partnerEvent(subscription.endpointUrl, event);
  }
}

/**
 * The seed's partner event payload. The invoice is the sandbox's reading of the order: invoiceNumber is the
 * order_id, invoiceId is derived from the transaction (one completion per transaction).
 */
export function paymentCompletedEvent(payment: PaymentRecord, now: Date) {
  return {
    id: `evt_${payment.transactionId}`,
    eventType: PAYMENT_COMPLETED_EVENT,
    timestamp: now.toISOString(),
    data: {
      invoice: {
        invoiceId: `inv_${payment.transactionId}`,
        invoiceNumber: payment.orderId,
        status: "COMPLETED",
      },
      payment: {
        transactionId: payment.transactionId,
        amount: payment.amount,
        currency: payment.currency,
        rescode: SUCCESS_RESCODE,
        resmsg: SUCCESS_RESMSG,
      },
    },
  };
}
