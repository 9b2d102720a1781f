import type { CreditNote, Invoice } from "../core/base/documents";
import type { ChargeAttempt, RefundRecord, Subscription } from "../core/base/model";
import type { CouponCreation } from "../core/catalog/coupons";
import type { PriceCreation, PriceUpdate } from "../core/catalog/prices";
import type { AdHocChargeResult, NotChargeable } from "../core/charging/ad-hoc-charge";
import { refusalOfLine } from "../core/charging/ledger-lines";
import type { ReceiptResult } from "../core/charging/receipts";
import type { EndpointCreation } from "../core/delivery/webhooks";
import type { CheckoutStart } from "../core/lifecycle/checkout";
import type { PaymentMethodResult } from "../core/lifecycle/payment-method";
import type { PaymentMethodWindowStart } from "../core/lifecycle/payment-method-window";
import type { PlanChangeResult } from "../core/lifecycle/plan-change";
import type { ChangeResult } from "../core/lifecycle/subscription-changes";
import type { SubscriptionPage } from "../core/ports/billing-repository";
import type { Coupon, CouponPage } from "../core/ports/coupon-store";
import type { DocumentPage } from "../core/ports/document-store";
import type { Price, PricePage } from "../core/ports/price-store";
import type { WebhookDelivery, WebhookEndpoint } from "../core/ports/webhook-ports";
import type { RefundOutcome } from "../core/refunds/refunds";
import type { SignupResult } from "../core/signup/signup";
import { couponViewOf } from "./coupon-schemas";
import { creditNoteViewOf, type DocumentUrls, invoiceViewOf } from "./document-schemas";
import {
  ApiError,
  type ApiResponse,
  accepted,
  changeFailure,
  gatewayFailure,
  invalidInput,
  notFound,
  notRefundable,
  signupConflict,
  subscriptionCanceled,
} from "./errors";
import { created, ok } from "./http";
import { priceViewOf } from "./price-schemas";
import { chargeView, refundView, subscriptionView, webhookDeliveryView, webhookEndpointView } from "./views";

// What each core result answers on the merchant API: a view with its status, or a thrown ApiError (errors.ts maps
// it). One function per use case, so handlers stay wiring.

export function subscriptionAnswer(subscription: Subscription | undefined): ApiResponse {
  if (!subscription) throw notFound("subscription");
  return ok(subscriptionView(subscription));
}

export function subscriptionListAnswer(page: SubscriptionPage): ApiResponse {
  return ok({ data: page.subscriptions.map(subscriptionView), next_cursor: page.cursor ?? null });
}

export function signupAnswer(result: SignupResult): ApiResponse {
  switch (result.kind) {
    case "active":
      return created(subscriptionView(result.subscription));
    case "pending":
      return accepted(subscriptionView(result.subscription));
    case "refused":
      throw gatewayFailure(result.failure);
    case "invalid_input":
      throw invalidInput(result);
    case "conflict":
      throw signupConflict(result.reason);
  }
}

/** `pageUrl`: our hosted checkout page of a subscription, its link valid until the checkout expires. */
export function checkoutAnswer(
  result: CheckoutStart,
  pageUrl: (subscriptionId: string, expiresAt: string) => string,
): ApiResponse {
  if (result.kind === "refused") throw gatewayFailure(result.failure);
  if (result.kind === "invalid_input") throw invalidInput(result);
  if (result.kind === "conflict") throw signupConflict(result.reason);
  const { checkout_id, subscription_id, order_id, expires_at, fgkey, launch } = result.checkout;
  return created({
    checkout_id,
    subscription_id,
    order_id,
    checkout_url: pageUrl(subscription_id, expires_at),
    expires_at,
    fgkey,
    ...launch,
  });
}

export function changeAnswer(result: ChangeResult): ApiResponse {
  if (result.kind !== "changed") throw changeFailure(result);
  return ok(subscriptionView(result.subscription));
}

/** A change that pays first (a new card, a prorated upgrade): 202 while the payment's outcome is being settled. */
export function paidChangeAnswer(result: PaymentMethodResult | PlanChangeResult): ApiResponse {
  if (result.kind === "pending") return accepted(subscriptionView(result.subscription));
  if (result.kind === "invalid_input") throw invalidInput(result);
  return changeAnswer(result);
}

export function paymentMethodWindowAnswer(result: PaymentMethodWindowStart): ApiResponse {
  if (result.kind === "started") {
    const { subscription_id, order_id, expires_at, fgkey, launch } = result.window;
    return created({ subscription_id, order_id, expires_at, fgkey, ...launch });
  }
  throw changeFailure(result);
}

export function receiptAnswer(chargeId: string, result: ReceiptResult): ApiResponse {
  switch (result.kind) {
    case "receipt":
      return ok({ charge_id: chargeId, receipt_url: result.receipt_url });
    case "not_found":
      throw notFound("charge");
    case "no_receipt":
      throw new ApiError(409, "no_receipt", `a ${result.status} charge has no receipt`);
    case "refused":
      throw gatewayFailure(result.failure);
  }
}

export function chargeListAnswer(
  charges: readonly ChargeAttempt[] | undefined,
  invoiceUrlOf: (number: string) => string,
): ApiResponse {
  if (!charges) throw notFound("subscription");
  return ok({ charges: charges.map((charge) => chargeView(charge, invoiceUrlOf)) });
}

const NOT_CHARGEABLE: Readonly<Record<Exclude<NotChargeable, "subscription_canceled">, string>> = {
  subscription_pending: "the subscription's first payment is not settled yet",
  no_stored_token: "the subscription has no stored card to charge",
  ad_hoc_range_exhausted: "this subscription has no ad hoc charge left",
};

export function adHocChargeAnswer(result: AdHocChargeResult): ApiResponse {
  switch (result.kind) {
    case "not_found":
      throw notFound("subscription");
    case "not_chargeable":
      if (result.reason === "subscription_canceled") throw subscriptionCanceled();
      throw new ApiError(409, result.reason, NOT_CHARGEABLE[result.reason]);
    case "recorded":
      return chargeLineAnswer(result.charge);
    case "invalid_input":
      throw invalidInput(result);
  }
}

/** A ledger line as the answer to the request that made it: its status says what became of the charge. */
function chargeLineAnswer(line: ChargeAttempt): ApiResponse {
  const refusal = refusalOfLine(line);
  if (refusal !== undefined) throw gatewayFailure(refusal);
  return line.status === "succeeded" ? created(chargeView(line)) : accepted(chargeView(line));
}

export function refundAnswer(outcome: RefundOutcome): ApiResponse {
  switch (outcome.kind) {
    case "refunded":
      return created(refundView(outcome.refund));
    case "existing":
      return refundRecordAnswer(outcome.refund);
    case "not_refundable":
      throw notRefundable(outcome.reason);
    case "invalid_input":
      throw invalidInput(outcome);
    case "pending":
      // Its outcome is being settled (the attempt sweep asks the gateway by refund_id): GET shows the result.
      return accepted(refundView(outcome.refund));
    case "refused":
      throw gatewayFailure(outcome.failure);
  }
}

function refundRecordAnswer(refund: RefundRecord): ApiResponse {
  switch (refund.status) {
    case "succeeded":
      return created(refundView(refund));
    case "pending":
    case "unknown":
      return accepted(refundView(refund));
    case "failed":
      throw new ApiError(422, refund.rescode ?? "refund_failed", "the refund was refused");
  }
}

/** A registered endpoint, with its secret: the one answer that shows it. */
export function webhookEndpointCreatedAnswer(result: EndpointCreation): ApiResponse {
  if (result.kind === "invalid_input") throw invalidInput(result);
  if (result.kind === "full")
    throw new ApiError(
      409,
      "too_many_webhook_endpoints",
      "this account has as many webhook endpoints as it may: delete one first",
    );
  return created({ ...webhookEndpointView(result.endpoint), secret: result.endpoint.secret });
}

export function webhookEndpointAnswer(endpoint: WebhookEndpoint | undefined): ApiResponse {
  if (endpoint === undefined) throw notFound("webhook endpoint");
  return ok(webhookEndpointView(endpoint));
}

export function webhookDeliveriesAnswer(deliveries: readonly WebhookDelivery[] | undefined): ApiResponse {
  if (deliveries === undefined) throw notFound("webhook endpoint");
  return ok({ data: deliveries.map(webhookDeliveryView) });
}

export function couponCreatedAnswer(result: CouponCreation, now: Date): ApiResponse {
  switch (result.kind) {
    case "created":
      return created(couponViewOf(result.coupon, now));
    case "invalid_input":
      throw invalidInput(result);
    case "conflict":
      throw new ApiError(409, "coupon_conflict", result.reason);
  }
}

export const couponAnswer = (coupon: Coupon | undefined, now: Date): ApiResponse => {
  if (coupon === undefined) throw new ApiError(404, "not_found", "no such coupon");
  return ok(couponViewOf(coupon, now));
};

export const couponListAnswer = (page: CouponPage, now: Date): ApiResponse =>
  ok({ data: page.coupons.map((coupon) => couponViewOf(coupon, now)), next_cursor: page.cursor ?? null });

export function priceCreatedAnswer(result: PriceCreation): ApiResponse {
  switch (result.kind) {
    case "created":
      return created(priceViewOf(result.price));
    case "invalid_input":
      throw invalidInput(result);
    case "conflict":
      throw new ApiError(409, "price_conflict", result.reason);
  }
}

export function priceUpdatedAnswer(result: PriceUpdate): ApiResponse {
  switch (result.kind) {
    case "updated":
      return ok(priceViewOf(result.price));
    case "not_found":
      throw notFound("price");
    case "conflict":
      throw new ApiError(409, "price_conflict", result.reason);
  }
}

export const priceAnswer = (price: Price | undefined): ApiResponse => {
  if (price === undefined) throw notFound("price");
  return ok(priceViewOf(price));
};

export const priceListAnswer = (page: PricePage): ApiResponse =>
  ok({ data: page.prices.map(priceViewOf), next_cursor: page.cursor ?? null });

export const invoiceAnswer = (invoice: Invoice | undefined, urls: DocumentUrls): ApiResponse => {
  if (invoice === undefined) throw notFound("invoice");
  return ok(invoiceViewOf(invoice, urls));
};

export const invoiceListAnswer = (page: DocumentPage<Invoice>, urls: DocumentUrls): ApiResponse =>
  ok({
    data: page.documents.map((invoice) => invoiceViewOf(invoice, urls)),
    next_cursor: page.cursor ?? null,
  });

export const creditNoteAnswer = (note: CreditNote | undefined, urls: DocumentUrls): ApiResponse => {
  if (note === undefined) throw notFound("credit note");
  return ok(creditNoteViewOf(note, urls));
};

export const creditNoteListAnswer = (page: DocumentPage<CreditNote>, urls: DocumentUrls): ApiResponse =>
  ok({ data: page.documents.map((note) => creditNoteViewOf(note, urls)), next_cursor: page.cursor ?? null });
