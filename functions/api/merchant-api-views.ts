import * as z from "zod";
import { chargeKind } from "../core/base/charge-kind";
import { attemptStatus, type Billed, declineReasonSchema, refundStatus } from "../core/base/model";
import { addedTaxView, nextStepSchema, subscriptionViewSchema } from "../core/base/subscription-view";
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_SIGNATURE_SCHEMES,
  webhookEventTypeSchema,
} from "../core/ports/webhook-ports";
import { lazySchema, lazyShape } from "../shared/lazy-schema";
import { isoInstant } from "./merchant-api-schemas";
import { pageView } from "./page-query";

// The merchant API's answers (README, Merchant API): every view a route returns, as the OpenAPI document publishes it;
// the requests they answer are in merchant-api-schemas.ts.

/** What a page needs to open the gateway's payment window. */
const windowLaunch = lazyShape(() => ({
  fgkey: z.string().describe("The window's integrity key (also inside request_pay)."),
  sdk_url: z
    .url()
    .describe("The gateway's payment window SDK for the configured environment: load it on the page."),
  request_pay: z
    .record(z.string(), z.unknown())
    .describe(
      "Pass unchanged to the SDK's EXIMBAY.request_pay(): the fgkey plus exactly the parameters the window was prepared with (any difference fails the gateway's fgkey check).",
    ),
}));

const windowExpiresAt = lazySchema(() =>
  isoInstant.describe(
    "When the window expires if it is not paid by then (checkout.expired); a payment after that is refunded.",
  ),
);

export const checkoutView = lazySchema(() =>
  z.strictObject({
    checkout_id: z.string(),
    subscription_id: z.string(),
    order_id: z.string(),
    checkout_url: z
      .url()
      .describe(
        "Our hosted checkout page for the customer: what is bought, a pay button opening the window, then the outcome. A signed link, valid until expires_at.",
      ),
    expires_at: windowExpiresAt,
    ...windowLaunch(),
  }),
);
export type CheckoutView = z.output<typeof checkoutView>;

/** A new card's payment window: request_pay opens it; its status_url result completes the update. */
export const paymentMethodWindowView = lazySchema(() =>
  z.strictObject({
    subscription_id: z.string(),
    order_id: z.string(),
    expires_at: windowExpiresAt,
    ...windowLaunch(),
  }),
);

export const subscriptionView = subscriptionViewSchema;
export type { SubscriptionView } from "../core/base/subscription-view";

export const subscriptionListView = lazySchema(() => pageView(subscriptionView));
export type SubscriptionListView = z.output<typeof subscriptionListView>;

export const receiptView = lazySchema(() =>
  z.strictObject({
    charge_id: z.string(),
    receipt_url: z
      .string()
      .describe("The gateway's receipt page of the charge's transaction, for the customer."),
  }),
);
export type ReceiptView = z.output<typeof receiptView>;

/** A decline, as the merchant API shows it (a declined charge, a refused sign-up). */
export const declineView = lazySchema(() =>
  z
    .strictObject({
      rescode: z.string().describe("The gateway's result code."),
      errcode: z.string().optional().describe("The gateway's named reason (v2 errcode), when it sent one."),
      reason: declineReasonSchema.optional().describe("Why, in the customer's terms."),
      message: z.string().optional().describe("The reason in plain English, for people."),
      next_step: nextStepSchema.optional(),
    })
    .describe("Why the payment was declined and what can be done about it."),
);
export type DeclineView = z.output<typeof declineView>;

/** What a card was billed in its own currency when the gateway converted the charge (dynamic currency conversion). */
export const billedView = lazySchema(() =>
  z
    .strictObject({
      currency: z.string(),
      amount: z.string(),
      rate: z
        .string()
        .nullable()
        .describe("One unit of the charge's currency in `currency`, as the gateway said."),
    })
    .describe(
      "What the customer's card was billed in its own currency when the gateway converted the charge (dynamic currency conversion); the charge's own amount is what you are paid.",
    ),
);

export const billedViewOf = (billed: Billed): z.output<typeof billedView> => ({
  ...billed,
  rate: billed.rate ?? null,
});

export const chargeView = lazySchema(() =>
  z.strictObject({
    charge_id: z.string(),
    kind: chargeKind.describe(
      "scheduled: a billing period (period counts from 0); ad_hoc: a charge made through this API (period ≥ 5000).",
    ),
    period: z.number().int().min(0),
    attempt: z.number().int().min(0),
    order_id: z.string(),
    amount: z
      .string()
      .describe("What was charged: amount_before_discount less discount, plus any tax added on top."),
    amount_before_discount: z
      .string()
      .describe(
        "The plan's total for the period (unit amount × seats), or the ad hoc amount, before any tax added on top.",
      ),
    discount: z
      .string()
      .describe('What a coupon took off ("0.00" when none), rounded in the customer\'s favour.'),
    coupon_id: z.string().optional().describe("The coupon whose discount this charge had."),
    tax: addedTaxView
      .extend({ amount: z.string().describe("The part of `amount` that is this tax.") })
      .optional()
      .describe("A tax added on top of the charge (the subscription's tax_rate); absent when none was."),
    currency: z.string(),
    status: attemptStatus,
    transaction_id: z.string().optional(),
    billed: billedView.optional(),
    refunded_amount: z.string(),
    decline: declineView.optional(),
    invoice_number: z
      .string()
      .optional()
      .describe("The invoice a paid charge was finalized as (GET /v1/invoices/{number})."),
    invoice_url: z
      .url()
      .optional()
      .describe(
        "That invoice's page for your customer (its PDF one link away), signed for about six months: in a charge listing.",
      ),
    created_at: isoInstant,
  }),
);
export type ChargeView = z.output<typeof chargeView>;

export const chargeListView = lazySchema(() => z.strictObject({ charges: z.array(chargeView) }));
export type ChargeListView = z.output<typeof chargeListView>;

export const refundView = lazySchema(() =>
  z.strictObject({
    refund_id: z.string(),
    charge_id: z.string(),
    amount: z.string(),
    currency: z.string(),
    reason: z.string(),
    status: refundStatus,
    refund_transaction_id: z.string().optional(),
    credit_note_number: z.string().optional().describe("The credit note a succeeded refund was recorded as."),
    created_at: isoInstant,
  }),
);
export type RefundView = z.output<typeof refundView>;

const webhookEndpointFields = lazyShape(() => ({
  id: z.string(),
  url: z.string(),
  events: z.array(webhookEventTypeSchema),
  description: z.string().nullable(),
  signature_scheme: z
    .enum(WEBHOOK_SIGNATURE_SCHEMES)
    .describe(
      "How its deliveries are signed: standard_webhooks (webhook-id, webhook-timestamp, webhook-signature), every endpoint registered now; billing_signature (the billing-signature header) for endpoints registered before.",
    ),
  created_at: isoInstant,
}));

/** An endpoint as listed and deleted: never its secret. */
export const webhookEndpointView = lazySchema(() => z.strictObject(webhookEndpointFields()));
export type WebhookEndpointView = z.output<typeof webhookEndpointView>;

/** The answer to its creation, the only one that shows the secret. */
export const createdWebhookEndpointView = lazySchema(() =>
  z.strictObject({
    ...webhookEndpointFields(),
    secret: z
      .string()
      .describe(
        "The endpoint's signing secret (whsec_ and base64, as Standard Webhooks has it): shown only in this answer. Verify each delivery's webhook-signature with it.",
      ),
  }),
);

export const webhookEndpointListView = lazySchema(() =>
  z.strictObject({
    data: z.array(webhookEndpointView).max(MAX_WEBHOOK_ENDPOINTS),
  }),
);

export const webhookDeliveryView = lazySchema(() =>
  z.strictObject({
    id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    status: z
      .enum(WEBHOOK_DELIVERY_STATUSES)
      .describe(
        "retrying: waiting for its next attempt (the first included); delivered: a 2xx came back; failed: no 2xx in 3 days of retries.",
      ),
    attempts: z.number().int().min(0),
    last_status: z
      .number()
      .int()
      .nullable()
      .describe("The HTTP status of the last attempt; null without one."),
    last_error: z
      .string()
      .nullable()
      .describe("Why the last attempt got no HTTP status (timeout, connection refused, refused address)."),
    next_attempt_at: isoInstant.nullable(),
    first_attempt_at: isoInstant.nullable(),
    last_attempt_at: isoInstant.nullable(),
    created_at: isoInstant.describe("When the event was queued for the endpoint."),
    updated_at: isoInstant,
  }),
);
export type WebhookDeliveryView = z.output<typeof webhookDeliveryView>;

export const webhookDeliveryListView = lazySchema(() =>
  z.strictObject({
    data: z
      .array(webhookDeliveryView)
      .describe("The endpoint's recent deliveries, newest first (at most 50)."),
  }),
);

export const localClockView = lazySchema(() => z.strictObject({ now: isoInstant }));

/** GET /local/mail: every mail local mode's SES stand-in was given, newest first. */
export const localMailListView = lazySchema(() =>
  z.strictObject({
    mails: z.array(
      z.strictObject({
        template: z.string().optional().describe("payment_failed, card_expiring, receipt, …"),
        mail_id: z.string().optional().describe("What the mail was claimed under: one mail per id, ever."),
        event_id: z
          .string()
          .optional()
          .describe("The event the mail answers (date-driven mails answer none)."),
        message_id: z.string(),
        from: z.string(),
        to: z.array(z.string()),
        reply_to: z.array(z.string()).optional(),
        subject: z.string(),
        text: z.string(),
        html: z.string(),
        sent_at: isoInstant,
      }),
    ),
  }),
);

/** Every error: a stable code, a message that never repeats the input, and the offending field when there is one. */
export const errorBody = lazySchema(() =>
  z.strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
      decline: declineView.optional(),
    }),
  }),
);
export type ErrorBody = z.output<typeof errorBody>;
