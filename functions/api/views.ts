import { chargeKindOf } from "../core/base/charge-kind";
import {
  type ChargeAttempt,
  type DeclineReason,
  type MaskedCard,
  nextStepOf,
  type RefundRecord,
} from "../core/base/model";
import { fromCents } from "../core/base/money";
import { orderIdFor } from "../core/base/order-id";
import { netBeforeDiscount } from "../core/base/plan-price";
import type { WebhookDelivery, WebhookEndpoint } from "../core/ports/webhook-ports";
import type { CreateSubscriptionBody } from "./merchant-api-schemas";
import {
  billedViewOf,
  type ChargeView,
  type DeclineView,
  type RefundView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from "./merchant-api-views";

// What the merchant API shows of the billing records: built field by field, so nothing stored (token_id, customer,
// lease) reaches a response unless a view declares it. A subscription's view is the core's: events carry it too.

export { subscriptionView } from "../core/base/subscription-view";

/** A decline's reason in plain English (the API, the CLI); pages say it in the customer's language. */
const DECLINE_MESSAGES: Readonly<Record<DeclineReason, string>> = {
  insufficient_funds: "The card has insufficient funds.",
  card_declined: "The card issuer declined the payment.",
  limit_exceeded: "The card's limit on payments was reached.",
  try_again_later: "The payment could not be processed just now.",
  expired_card: "The card has expired.",
  card_unusable: "The card cannot be used (lost or stolen, not valid, or not supported).",
  authentication_failed: "The cardholder could not be authenticated.",
};

/** Why a payment was declined: the gateway's codes and, when known, the reason with its next step. */
export function declineView(decline: {
  readonly rescode: string;
  readonly errcode?: string;
  readonly reason?: DeclineReason;
}): DeclineView {
  const { rescode, errcode, reason } = decline;
  return {
    rescode,
    ...(errcode === undefined ? {} : { errcode }),
    ...(reason === undefined
      ? {}
      : { reason, message: DECLINE_MESSAGES[reason], next_step: nextStepOf(reason) }),
  };
}

/**
 * A charge is one attempt of the ledger. Its id is the attempt key as an order_id (attemptKeyOf reads it back); it
 * differs from order_id only for a charge the gateway ran on a recurring plan, which carries the gateway's order_id.
 */
/** A charge; `invoiceUrlOf` links its invoice's page, where the answer offers one (a charge listing). */
export function chargeView(attempt: ChargeAttempt, invoiceUrlOf?: (number: string) => string): ChargeView {
  return {
    charge_id: orderIdFor(attempt),
    kind: chargeKindOf(attempt.period),
    period: attempt.period,
    attempt: attempt.attempt,
    order_id: attempt.order_id,
    amount: attempt.amount,
    amount_before_discount: netBeforeDiscount(attempt),
    discount: attempt.discount ?? fromCents(0, attempt.currency),
    ...(attempt.coupon_id === undefined ? {} : { coupon_id: attempt.coupon_id }),
    ...(attempt.tax === undefined ? {} : { tax: { ...attempt.tax } }),
    currency: attempt.currency,
    status: attempt.status,
    ...(attempt.transaction_id === undefined ? {} : { transaction_id: attempt.transaction_id }),
    ...(attempt.billed === undefined ? {} : { billed: billedViewOf(attempt.billed) }),
    refunded_amount: attempt.refunded_amount ?? fromCents(0, attempt.currency),
    ...(attempt.status === "declined" && attempt.rescode !== undefined
      ? {
          decline: declineView({
            rescode: attempt.rescode,
            errcode: attempt.errcode,
            reason: attempt.decline_reason,
          }),
        }
      : {}),
    ...(attempt.invoice_number === undefined ? {} : { invoice_number: attempt.invoice_number }),
    ...(attempt.invoice_number === undefined || invoiceUrlOf === undefined
      ? {}
      : { invoice_url: invoiceUrlOf(attempt.invoice_number) }),
    created_at: attempt.created_at,
  };
}

export function refundView(refund: RefundRecord): RefundView {
  return {
    refund_id: refund.refund_id,
    charge_id: orderIdFor(refund),
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    status: refund.status,
    ...(refund.refund_transaction_id === undefined
      ? {}
      : { refund_transaction_id: refund.refund_transaction_id }),
    ...(refund.credit_note_number === undefined ? {} : { credit_note_number: refund.credit_note_number }),
    created_at: refund.created_at,
  };
}

/** What identifies a card without being card data (first and last four digits, expiry): for request digests. */
export function maskedCardOf(card: CreateSubscriptionBody["card"]): MaskedCard & { readonly expiry: string } {
  return { first4: card.number.slice(0, 4), last4: card.number.slice(-4), expiry: card.expiry };
}

/** A webhook endpoint without its secret (only its creation's answer shows that). */
export function webhookEndpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.endpoint_id,
    url: endpoint.url,
    events: [...endpoint.events],
    description: endpoint.description ?? null,
    signature_scheme: endpoint.signature_scheme,
    created_at: endpoint.created_at,
  };
}

export function webhookDeliveryView(delivery: WebhookDelivery): WebhookDeliveryView {
  return {
    id: delivery.delivery_id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status: delivery.last_status ?? null,
    last_error: delivery.last_error ?? null,
    next_attempt_at: delivery.status === "retrying" ? (delivery.next_attempt_at ?? null) : null,
    first_attempt_at: delivery.first_attempt_at ?? null,
    last_attempt_at: delivery.last_attempt_at ?? null,
    created_at: delivery.created_at,
    updated_at: delivery.updated_at,
  };
}
