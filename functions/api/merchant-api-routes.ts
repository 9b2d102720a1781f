import type { z } from "zod";
import {
  couponIdParams,
  couponListView,
  couponView,
  createCouponBody,
  listCouponsQuery,
} from "./coupon-schemas";
import {
  creditNoteListView,
  creditNoteNumberParams,
  creditNoteView,
  invoiceListView,
  invoiceNumberParams,
  invoiceView,
  listDocumentsQuery,
} from "./document-schemas";
import {
  gatewayRefusal,
  partnerReply,
  recurringNoticeQuery,
  statusReplyText,
  webhookAck,
  webhookPayload,
  windowResultParams,
} from "./gateway-callback-schemas";
import {
  adjustSubscriptionBody,
  cancelSubscriptionBody,
  chargeIdParams,
  createChargeBody,
  createCheckoutBody,
  createPortalSessionBody,
  createRefundBody,
  createSubscriptionBody,
  createWebhookEndpointBody,
  emptyBody,
  listSubscriptionsQuery,
  localClockBody,
  pauseSubscriptionBody,
  portalSessionView,
  subscriptionIdParams,
  updatePaymentMethodBody,
  updateSubscriptionBody,
  webhookEndpointIdParams,
} from "./merchant-api-schemas";
import {
  chargeListView,
  chargeView,
  checkoutView,
  createdWebhookEndpointView,
  errorBody,
  localClockView,
  localMailListView,
  paymentMethodWindowView,
  receiptView,
  refundView,
  subscriptionListView,
  subscriptionView,
  webhookDeliveryListView,
  webhookEndpointListView,
  webhookEndpointView,
} from "./merchant-api-views";
import {
  createPriceBody,
  listPricesQuery,
  priceIdParams,
  priceListView,
  priceView,
  updatePriceBody,
} from "./price-schemas";

// The route table of the merchant API (README, Merchant API): one entry per method and path, naming the schemas of its
// input and of every answer. The OpenAPI document is generated from it.

/** Schemas that appear by name in the OpenAPI document; requests are described as accepted, views as sent. */
export const REQUEST_SCHEMAS = {
  CreateCheckoutRequest: createCheckoutBody,
  CreatePortalSessionRequest: createPortalSessionBody,
  CreateSubscriptionRequest: createSubscriptionBody,
  UpdateSubscriptionRequest: updateSubscriptionBody,
  AdjustSubscriptionRequest: adjustSubscriptionBody,
  UpdatePaymentMethodRequest: updatePaymentMethodBody,
  PauseSubscriptionRequest: pauseSubscriptionBody,
  CancelSubscriptionRequest: cancelSubscriptionBody,
  EmptyRequest: emptyBody,
  CreateChargeRequest: createChargeBody,
  CreateRefundRequest: createRefundBody,
  CreateWebhookEndpointRequest: createWebhookEndpointBody,
  CreateCouponRequest: createCouponBody,
  CreatePriceRequest: createPriceBody,
  UpdatePriceRequest: updatePriceBody,
  LocalClockRequest: localClockBody,
  WindowResult: windowResultParams,
  WebhookPayload: webhookPayload,
} as const satisfies Record<string, z.ZodType>;

export const RESPONSE_SCHEMAS = {
  Checkout: checkoutView,
  PaymentMethodWindow: paymentMethodWindowView,
  Subscription: subscriptionView,
  SubscriptionList: subscriptionListView,
  Charge: chargeView,
  ChargeList: chargeListView,
  Receipt: receiptView,
  PortalSession: portalSessionView,
  Refund: refundView,
  WebhookEndpoint: webhookEndpointView,
  CreatedWebhookEndpoint: createdWebhookEndpointView,
  WebhookEndpointList: webhookEndpointListView,
  WebhookDeliveryList: webhookDeliveryListView,
  Price: priceView,
  PriceList: priceListView,
  Coupon: couponView,
  CouponList: couponListView,
  Invoice: invoiceView,
  InvoiceList: invoiceListView,
  CreditNote: creditNoteView,
  CreditNoteList: creditNoteListView,
  LocalClock: localClockView,
  LocalMailList: localMailListView,
  WebhookAck: webhookAck,
  GatewayRefusal: gatewayRefusal,
  PartnerReply: partnerReply,
  StatusReply: statusReplyText,
  Error: errorBody,
} as const satisfies Record<string, z.ZodType>;

export type RequestSchemaName = keyof typeof REQUEST_SCHEMAS;
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

export type HttpMethod = "GET" | "POST" | "DELETE";

/**
 * An answer of a route: its successes, and a refusal in a dialect of its own (a gateway callback's); other errors are
 * listed by status, their body the Error schema.
 */
export interface RouteAnswer {
  readonly status: 200 | 201 | 202 | 400 | 401 | 404;
  readonly description: string;
  readonly schema: ResponseSchemaName;
  /** JSON unless said otherwise. */
  readonly mediaType?: "text/plain";
}

export interface MerchantApiRoute {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template. */
  readonly path: string;
  readonly summary: string;
  /** bearer: the merchant API key. none: a gateway callback, authenticated its own way (verify, signature). */
  readonly auth: "bearer" | "none";
  readonly pathParams?: z.ZodObject;
  readonly query?: { readonly schema: z.ZodObject } | { readonly freeForm: RequestSchemaName };
  readonly body?: {
    readonly schema: RequestSchemaName;
    readonly mediaType: "application/json" | "application/x-www-form-urlencoded";
    /** The request may leave the body out (it then means `{}`). */
    readonly optional?: true;
  };
  readonly answers: readonly RouteAnswer[];
  /** Error statuses besides 500, which every route may answer; their body is the Error schema. */
  readonly errors: readonly (400 | 401 | 404 | 409 | 422 | 503)[];
  readonly localOnly?: true;
}

/** status_url answers in the gateway's text, received or refused. */
const STATUS_REPLIES: readonly RouteAnswer[] = [
  {
    status: 200,
    description: "Received: rescode=0000&resmsg=Success",
    schema: "StatusReply",
    mediaType: "text/plain",
  },
  {
    status: 400,
    description: "Not a window result: rescode=EC00",
    schema: "StatusReply",
    mediaType: "text/plain",
  },
];

const json = (schema: RequestSchemaName) => ({ schema, mediaType: "application/json" as const });

/** What a bearer POST may meet besides its own refusals: bad input, bad key, a reused Idempotency-Key. */
const POST_ERRORS = [400, 401, 409] as const;

export const MERCHANT_API_ROUTES: readonly MerchantApiRoute[] = [
  {
    operationId: "createCheckout",
    method: "POST",
    path: "/v1/checkouts",
    summary:
      "Start a payment-window sign-up: load sdk_url and call its request_pay with the answer's request_pay",
    auth: "bearer",
    body: json("CreateCheckoutRequest"),
    answers: [{ status: 201, description: "Checkout started", schema: "Checkout" }],
    errors: [...POST_ERRORS, 422, 503],
  },
  {
    operationId: "createPortalSession",
    method: "POST",
    path: "/v1/portal-sessions",
    summary:
      "A customer portal link (15 minutes unless told): the customer sees their subscriptions and charges, updates the card, pays what is overdue, cancels or resumes",
    auth: "bearer",
    body: json("CreatePortalSessionRequest"),
    answers: [{ status: 201, description: "Portal link made", schema: "PortalSession" }],
    errors: [...POST_ERRORS, 404],
  },
  {
    operationId: "createSubscription",
    method: "POST",
    path: "/v1/subscriptions",
    summary: "Sign up with a card: period 0 is charged at once and the card kept as a gateway token",
    auth: "bearer",
    body: json("CreateSubscriptionRequest"),
    answers: [
      { status: 201, description: "Active: the first period is paid", schema: "Subscription" },
      {
        status: 202,
        description: "Pending: the first charge's outcome is being settled with the gateway",
        schema: "Subscription",
      },
    ],
    errors: [...POST_ERRORS, 422, 503],
  },
  {
    operationId: "listSubscriptions",
    method: "GET",
    path: "/v1/subscriptions",
    summary:
      "List subscriptions (from indexes): by status, one customer's (external_id), or all; a page at a time",
    auth: "bearer",
    query: { schema: listSubscriptionsQuery },
    answers: [{ status: 200, description: "One page", schema: "SubscriptionList" }],
    errors: [400, 401],
  },
  {
    operationId: "getSubscription",
    method: "GET",
    path: "/v1/subscriptions/{id}",
    summary: "Read a subscription",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    answers: [{ status: 200, description: "The subscription", schema: "Subscription" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "updateSubscription",
    method: "POST",
    path: "/v1/subscriptions/{id}",
    summary: "Edit your own references: the customer's external_id and the metadata",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: json("UpdateSubscriptionRequest"),
    answers: [{ status: 200, description: "Updated (or already so)", schema: "Subscription" }],
    errors: [...POST_ERRORS, 404],
  },
  {
    operationId: "adjustSubscription",
    method: "POST",
    path: "/v1/subscriptions/{id}/adjust",
    summary: "Change the plan amount from the next charge on",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: json("AdjustSubscriptionRequest"),
    answers: [{ status: 200, description: "Adjusted", schema: "Subscription" }],
    errors: [...POST_ERRORS, 404, 422, 503],
  },
  {
    operationId: "updatePaymentMethod",
    method: "POST",
    path: "/v1/subscriptions/{id}/payment-method",
    summary:
      "Replace the card (sent here, or typed in a payment window): a past_due subscription pays its overdue period with it and is active again; otherwise the card is verified by the smallest charge, refunded at once",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: json("UpdatePaymentMethodRequest"),
    answers: [
      { status: 200, description: "The card is replaced", schema: "Subscription" },
      {
        status: 201,
        description: "The payment window is ready (window): its result completes the update",
        schema: "PaymentMethodWindow",
      },
      {
        status: 202,
        description: "The payment's outcome is being settled with the gateway; the card is not replaced yet",
        schema: "Subscription",
      },
    ],
    errors: [...POST_ERRORS, 404, 422, 503],
  },
  {
    operationId: "pauseSubscription",
    method: "POST",
    path: "/v1/subscriptions/{id}/pause",
    summary:
      "Pause an active subscription (token billing): nothing is charged until it is resumed, or until resume_at",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: { ...json("PauseSubscriptionRequest"), optional: true },
    answers: [{ status: 200, description: "Paused (or already so)", schema: "Subscription" }],
    errors: [...POST_ERRORS, 404],
  },
  {
    operationId: "resumeSubscription",
    method: "POST",
    path: "/v1/subscriptions/{id}/resume",
    summary:
      "Resume a paused subscription: the next period starts when the paid one ends, or now (charged at once) when it ended during the pause",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: { ...json("EmptyRequest"), optional: true },
    answers: [{ status: 200, description: "Resumed (or not paused)", schema: "Subscription" }],
    errors: [...POST_ERRORS, 404],
  },
  {
    operationId: "cancelSubscription",
    method: "DELETE",
    path: "/v1/subscriptions/{id}",
    summary: "Cancel now, or at the end of the paid period: nothing more is charged",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: { ...json("CancelSubscriptionRequest"), optional: true },
    answers: [
      { status: 200, description: "Canceled (repeating it answers the same)", schema: "Subscription" },
    ],
    errors: [400, 401, 404, 409, 422, 503],
  },
  {
    operationId: "createCharge",
    method: "POST",
    path: "/v1/subscriptions/{id}/charges",
    summary: "Charge the stored token now (ad hoc REBILL)",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    body: json("CreateChargeRequest"),
    answers: [
      { status: 201, description: "Charged", schema: "Charge" },
      { status: 202, description: "Outcome unknown: settled through retrieve", schema: "Charge" },
    ],
    errors: [...POST_ERRORS, 404, 422, 503],
  },
  {
    operationId: "listCharges",
    method: "GET",
    path: "/v1/subscriptions/{id}/charges",
    summary: "The subscription's charge attempts, oldest first",
    auth: "bearer",
    pathParams: subscriptionIdParams,
    answers: [{ status: 200, description: "The ledger", schema: "ChargeList" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "listInvoices",
    method: "GET",
    path: "/v1/invoices",
    summary:
      "Invoices, newest first: of a subscription, of a customer (external_id) or all, issued within [from, to)",
    auth: "bearer",
    query: { schema: listDocumentsQuery },
    answers: [{ status: 200, description: "One page", schema: "InvoiceList" }],
    errors: [400, 401],
  },
  {
    operationId: "getInvoice",
    method: "GET",
    path: "/v1/invoices/{number}",
    summary: "An invoice: the paid charge it was finalized from, its lines, tax and total",
    auth: "bearer",
    pathParams: invoiceNumberParams,
    answers: [{ status: 200, description: "The invoice", schema: "Invoice" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "listCreditNotes",
    method: "GET",
    path: "/v1/credit-notes",
    summary:
      "Credit notes (one per succeeded refund), newest first: of a subscription, of a customer or all, within [from, to)",
    auth: "bearer",
    query: { schema: listDocumentsQuery },
    answers: [{ status: 200, description: "One page", schema: "CreditNoteList" }],
    errors: [400, 401],
  },
  {
    operationId: "getCreditNote",
    method: "GET",
    path: "/v1/credit-notes/{number}",
    summary: "A credit note: the refund it records and the invoice it credits",
    auth: "bearer",
    pathParams: creditNoteNumberParams,
    answers: [{ status: 200, description: "The credit note", schema: "CreditNote" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "getReceipt",
    method: "GET",
    path: "/v1/charges/{id}/receipt",
    summary: "The gateway's receipt page of a succeeded charge",
    auth: "bearer",
    pathParams: chargeIdParams,
    answers: [{ status: 200, description: "The receipt URL", schema: "Receipt" }],
    errors: [400, 401, 404, 409, 422, 503],
  },
  {
    operationId: "createRefund",
    method: "POST",
    path: "/v1/charges/{id}/refunds",
    summary: "Refund a charge fully or partly (the balance never goes below zero)",
    auth: "bearer",
    pathParams: chargeIdParams,
    body: json("CreateRefundRequest"),
    answers: [
      { status: 201, description: "Refunded", schema: "Refund" },
      { status: 202, description: "Outcome unknown: check the refund later", schema: "Refund" },
    ],
    errors: [...POST_ERRORS, 404, 422, 503],
  },
  {
    operationId: "createPrice",
    method: "POST",
    path: "/v1/prices",
    summary: "Add a price to the catalog: a product's amount, currency and interval, which never change",
    auth: "bearer",
    body: json("CreatePriceRequest"),
    answers: [{ status: 201, description: "Created", schema: "Price" }],
    errors: POST_ERRORS,
  },
  {
    operationId: "listPrices",
    method: "GET",
    path: "/v1/prices",
    summary: "The catalog's prices, a page at a time: active or archived ones, or the one a lookup_key names",
    auth: "bearer",
    query: { schema: listPricesQuery },
    answers: [{ status: 200, description: "One page", schema: "PriceList" }],
    errors: [400, 401],
  },
  {
    operationId: "getPrice",
    method: "GET",
    path: "/v1/prices/{id}",
    summary: "A price of the catalog",
    auth: "bearer",
    pathParams: priceIdParams,
    answers: [{ status: 200, description: "The price", schema: "Price" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "updatePrice",
    method: "POST",
    path: "/v1/prices/{id}",
    summary: "Archive or restore a price, move its lookup_key, edit its metadata (its amount never changes)",
    auth: "bearer",
    pathParams: priceIdParams,
    body: json("UpdatePriceRequest"),
    answers: [{ status: 200, description: "Updated", schema: "Price" }],
    errors: [...POST_ERRORS, 404],
  },
  {
    operationId: "createCoupon",
    method: "POST",
    path: "/v1/coupons",
    summary:
      "Create a coupon: a percentage or an amount off each charge, once, for some charges or forever, with an optional code, cap and deadline",
    auth: "bearer",
    body: json("CreateCouponRequest"),
    answers: [{ status: 201, description: "Created", schema: "Coupon" }],
    errors: POST_ERRORS,
  },
  {
    operationId: "listCoupons",
    method: "GET",
    path: "/v1/coupons",
    summary: "The coupons, a page at a time, with how often each was redeemed",
    auth: "bearer",
    query: { schema: listCouponsQuery },
    answers: [{ status: 200, description: "One page", schema: "CouponList" }],
    errors: [400, 401],
  },
  {
    operationId: "getCoupon",
    method: "GET",
    path: "/v1/coupons/{id}",
    summary: "A coupon, with how often it was redeemed and whether it can still be",
    auth: "bearer",
    pathParams: couponIdParams,
    answers: [{ status: 200, description: "The coupon", schema: "Coupon" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "createWebhookEndpoint",
    method: "POST",
    path: "/v1/webhook-endpoints",
    summary:
      "Register an endpoint for our signed webhooks: every billing event of the types named is POSTed to it (answers its signing secret, once)",
    auth: "bearer",
    body: json("CreateWebhookEndpointRequest"),
    answers: [{ status: 201, description: "Registered", schema: "CreatedWebhookEndpoint" }],
    errors: POST_ERRORS,
  },
  {
    operationId: "listWebhookEndpoints",
    method: "GET",
    path: "/v1/webhook-endpoints",
    summary: "The webhook endpoints (without their secrets)",
    auth: "bearer",
    answers: [{ status: 200, description: "Every endpoint", schema: "WebhookEndpointList" }],
    errors: [401],
  },
  {
    operationId: "deleteWebhookEndpoint",
    method: "DELETE",
    path: "/v1/webhook-endpoints/{id}",
    summary: "Delete a webhook endpoint: nothing more is sent to it",
    auth: "bearer",
    pathParams: webhookEndpointIdParams,
    body: { ...json("EmptyRequest"), optional: true },
    answers: [{ status: 200, description: "The deleted endpoint", schema: "WebhookEndpoint" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "listWebhookDeliveries",
    method: "GET",
    path: "/v1/webhook-endpoints/{id}/deliveries",
    summary: "An endpoint's recent deliveries, newest first: status, attempts, the last HTTP status or error",
    auth: "bearer",
    pathParams: webhookEndpointIdParams,
    answers: [{ status: 200, description: "The deliveries", schema: "WebhookDeliveryList" }],
    errors: [400, 401, 404],
  },
  {
    operationId: "receiveWindowResult",
    method: "GET",
    path: "/webhooks/status",
    summary: "status_url: the payment window's result, verified with the gateway before use",
    auth: "none",
    query: { freeForm: "WindowResult" },
    answers: STATUS_REPLIES,
    errors: [],
  },
  {
    operationId: "receiveWindowResultForm",
    method: "POST",
    path: "/webhooks/status",
    summary: "status_url, posted as a form",
    auth: "none",
    body: { schema: "WindowResult", mediaType: "application/x-www-form-urlencoded" },
    answers: STATUS_REPLIES,
    errors: [],
  },
  {
    operationId: "receiveGatewayWebhook",
    method: "POST",
    path: "/webhooks/gateway",
    summary: "Gateway webhook: signature and transmission time checked, de-duplicated",
    auth: "none",
    body: json("WebhookPayload"),
    answers: [
      {
        status: 200,
        description: "Received (or a repeat of a delivery already taken)",
        schema: "WebhookAck",
      },
      {
        status: 401,
        description: "Unsigned, tampered or outside ±300 s: rescode XXXX",
        schema: "GatewayRefusal",
      },
    ],
    errors: [],
  },
  {
    operationId: "receivePartnerEvent",
    method: "POST",
    path: "/webhooks/partner",
    summary: "Partner PAYMENT_COMPLETED: a hint, confirmed by retrieve",
    auth: "none",
    body: json("WebhookPayload"),
    answers: [
      { status: 200, description: "Received: CMN_0000", schema: "PartnerReply" },
      { status: 400, description: "Not a partner event: INVALID_EVENT", schema: "PartnerReply" },
    ],
    errors: [],
  },
  {
    operationId: "receiveRecurringNotice",
    method: "POST",
    path: "/webhooks/recurring",
    summary: "recurring_noti_url: a gateway-run charge, confirmed by retrieve",
    auth: "none",
    query: { schema: recurringNoticeQuery },
    body: json("WebhookPayload"),
    answers: [
      { status: 200, description: "Received", schema: "WebhookAck" },
      { status: 400, description: "No subscription named: rescode EC00", schema: "GatewayRefusal" },
      {
        status: 404,
        description: "The token is not the plan's secret (or no such plan): rescode EC00",
        schema: "GatewayRefusal",
      },
    ],
    errors: [],
  },
  {
    operationId: "advanceLocalClock",
    method: "POST",
    path: "/local/clock",
    summary: "Local mode only: move the clock; charge runs and the attempt sweep fire as they would have",
    auth: "bearer",
    body: json("LocalClockRequest"),
    answers: [{ status: 200, description: "The new time", schema: "LocalClock" }],
    errors: [400, 401],
    localOnly: true,
  },
  {
    operationId: "listLocalMail",
    method: "GET",
    path: "/local/mail",
    summary:
      "Local mode only: the mails sent to customers, newest first (an HTML inbox when a browser asks for text/html)",
    auth: "none",
    answers: [{ status: 200, description: "The mails", schema: "LocalMailList" }],
    // A request local mode cannot read (as for every route).
    errors: [400],
    localOnly: true,
  },
];

/** Where the OpenAPI document is served (no key needed). */
export const OPENAPI_PATH = "/openapi.json";

/** Whether a concrete path is an instance of an OpenAPI path template (`{name}` stands for one segment). */
function isPathOf(template: string, path: string): boolean {
  const expected = template.split("/");
  const given = path.split("/");
  return (
    expected.length === given.length &&
    expected.every((segment, index) =>
      /^\{[^}]+\}$/.test(segment) ? given[index] !== "" : segment === given[index],
    )
  );
}

/** The methods the deployed merchant API serves on a concrete path (none: no route has that path). */
export function methodsOnPath(path: string): HttpMethod[] {
  const routes = [
    ...MERCHANT_API_ROUTES.filter((route) => !route.localOnly),
    { method: "GET" as const, path: OPENAPI_PATH },
  ];
  return [...new Set(routes.filter((route) => isPathOf(route.path, path)).map((route) => route.method))];
}
