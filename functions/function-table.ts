import { type HttpMethod, MERCHANT_API_ROUTES, OPENAPI_PATH } from "./api/merchant-api-routes";
import type { HandlerDefinition } from "./composition/lambda-entry";
import * as SERVICE_SETS from "./composition/service-sets";
import type { BillingEvent } from "./core/base/events";
import { webhookEventTypes } from "./core/ports/webhook-ports";
import { run as adjustSubscription } from "./handlers/adjust-subscription";
import { run as answerUnmatchedRoute } from "./handlers/answer-unmatched-route";
import { run as authorizeMerchant } from "./handlers/authorize-merchant";
import { run as cancelSubscription } from "./handlers/cancel-subscription";
import { run as createCharge } from "./handlers/create-charge";
import { run as createCheckout } from "./handlers/create-checkout";
import { run as createCoupon } from "./handlers/create-coupon";
import { run as createPortalSession } from "./handlers/create-portal-session";
import { run as createPrice } from "./handlers/create-price";
import { run as createRefund } from "./handlers/create-refund";
import { run as createSubscription } from "./handlers/create-subscription";
import { run as createWebhookEndpoint } from "./handlers/create-webhook-endpoint";
import { run as deleteWebhookEndpoint } from "./handlers/delete-webhook-endpoint";
import { run as getCoupon } from "./handlers/get-coupon";
import { run as getOpenapi } from "./handlers/get-openapi";
import { run as getPrice } from "./handlers/get-price";
import { run as getReceipt } from "./handlers/get-receipt";
import { run as getSubscription } from "./handlers/get-subscription";
import { run as listCharges } from "./handlers/list-charges";
import { run as listCoupons } from "./handlers/list-coupons";
import { run as listPrices } from "./handlers/list-prices";
import { run as listSubscriptions } from "./handlers/list-subscriptions";
import { run as listWebhookDeliveries } from "./handlers/list-webhook-deliveries";
import { run as listWebhookEndpoints } from "./handlers/list-webhook-endpoints";
import { run as measureRevenue } from "./handlers/measure-revenue";
import { run as notifyCustomer } from "./handlers/notify-customer";
import { run as pauseSubscription } from "./handlers/pause-subscription";
import { run as processCharges } from "./handlers/process-charges";
import { run as processIntake } from "./handlers/process-intake";
import { run as publishEvents } from "./handlers/publish-events";
import { run as queueWebhooks } from "./handlers/queue-webhooks";
import { run as readDocuments } from "./handlers/read-documents";
import { run as receiveGatewayWebhook } from "./handlers/receive-gateway-webhook";
import { run as receivePartnerEvent } from "./handlers/receive-partner-event";
import { run as receiveRecurringNotice } from "./handlers/receive-recurring-notice";
import { run as receiveStatusCallback } from "./handlers/receive-status-callback";
import { run as reconcileLedger } from "./handlers/reconcile-ledger";
import { run as refreshPartnerToken } from "./handlers/refresh-partner-token";
import { run as registerPartnerWebhook } from "./handlers/register-partner-webhook";
import { run as replayEvents } from "./handlers/replay-events";
import { run as resumeSubscription } from "./handlers/resume-subscription";
import { run as runCharges } from "./handlers/run-charges";
import { run as sendReminders } from "./handlers/send-reminders";
import { run as sendWebhooks } from "./handlers/send-webhooks";
import { run as serveCheckoutPage } from "./handlers/serve-checkout-page";
import { run as serveDocument } from "./handlers/serve-document";
import { run as servePortalPage } from "./handlers/serve-portal-page";
import { run as sweepAttempts } from "./handlers/sweep-attempts";
import { run as sweepOutbox } from "./handlers/sweep-outbox";
import { run as updatePaymentMethod } from "./handlers/update-payment-method";
import { run as updatePrice } from "./handlers/update-price";
import { run as updateSubscription } from "./handlers/update-subscription";
import {
  CHECKOUT_PAGE_ROUTES,
  DOCUMENT_PAGE_ROUTES,
  type PageRoute,
  PORTAL_PAGE_ROUTES,
} from "./pages/shared/page-routes";

// Every Lambda function, declared once: its name (functions/handlers/<name>.ts holds its `run`), the run, the service
// set it runs over and what triggers it. CDK (lib/service-stack.ts: the function, its trigger, its variables and
// grants from the set's components), local mode (local/lambda/lambda-functions.ts), the OpenAPI document's deployed routes,
// the bundles (each function's entry is generated from its row: lib/lambda-bundling.ts) and the benchmarks read it.

export type ScheduleName =
  | "chargeRun"
  | "attemptSweep"
  | "outboxSweep"
  | "partnerToken"
  | "reconciliation"
  | "partnerWebhook"
  | "reminders"
  | "revenue";

export type QueueName = "charge" | "intake" | "webhook";

/** merchant: the merchant API and the gateway's webhooks. pages: our pages for customers, on an API of their own. */
export type HttpApiName = "merchant" | "pages";

export interface HttpRoute {
  readonly method: HttpMethod;
  readonly path: string;
  /** merchant: the Lambda authorizer (bearer API key). none: the handler authenticates the caller its own way. */
  readonly auth: "merchant" | "none";
}

export type Trigger =
  | { readonly kind: "schedule"; readonly schedule: ScheduleName }
  | { readonly kind: "queue"; readonly queue: QueueName; readonly batchSize: number }
  /** The billing table's stream (its writes' new and old images, in order per item). */
  | { readonly kind: "tableStream"; readonly batchSize: number }
  /** Routes of an HTTP API: the merchant API's (webhooks included), or our pages' (throttled apart). */
  | { readonly kind: "http"; readonly api: HttpApiName; readonly routes: readonly HttpRoute[] }
  /** The merchant API's $default route: every request no other route takes (no authorizer: it reads nothing). */
  | { readonly kind: "unmatched" }
  /** A rule on the event bus: the billing events of these types (each delivered at least once, retried on failure). */
  | { readonly kind: "eventRule"; readonly eventTypes: readonly BillingEvent["type"][] }
  /** Only the ops CLI invokes it (its name is a stack output: lib/stack-outputs.ts). */
  | { readonly kind: "invoked" }
  | { readonly kind: "authorizer" };

/**
 * A function: its `run` (the event and the services of its set) and its set, whose components decide its variables
 * and its CDK binds (grants included); its name, trigger and limits.
 */
export interface FunctionSpec<E, R, S> extends HandlerDefinition<E, R, S> {
  /** functions/handlers/<name>.ts, whose `run` this is. */
  readonly name: string;
  readonly trigger: Trigger;
  /** Seconds (default 29); a queue consumer's timeout is derived from its queue's visibility timeout instead. */
  readonly timeoutSeconds?: number;
  /**
   * At most this many at once: the event source's maximum concurrency for a queue consumer, reserved concurrency
   * otherwise. Every gateway caller needs one (the gateway's rate limits are the merchant's).
   */
  readonly concurrency?: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a row of any event, answer and services.
export type AnyFunctionSpec = FunctionSpec<any, unknown, any>;
/** A row of the table: the compiler checks that the run takes the services its set builds. */
const declare = <const N extends string, E, R, S>(spec: FunctionSpec<E, R, S> & { readonly name: N }) => spec;

/** Schedules and queues are named here; routes come from the merchant API's own route table. */
const schedule = (name: ScheduleName): Trigger => ({ kind: "schedule", schedule: name });
const queue = (name: QueueName, batchSize: number): Trigger => ({ kind: "queue", queue: name, batchSize });

/** The deployed routes of merchant API operations (functions/api/merchant-api-routes.ts): method, path, auth. */
function api(...operationIds: string[]): Trigger {
  const routes = operationIds.map((operationId): HttpRoute => {
    const route = MERCHANT_API_ROUTES.find((r) => r.operationId === operationId);
    if (route === undefined || route.localOnly)
      throw new Error(`no deployable merchant API route ${operationId}`);
    return { method: route.method, path: route.path, auth: route.auth === "bearer" ? "merchant" : "none" };
  });
  return { kind: "http", api: "merchant", routes };
}

/** Our pages' routes: no authorizer (each page checks its signed link). */
const pages = (routes: Readonly<Record<string, PageRoute>>): Trigger => ({
  kind: "http",
  api: "pages",
  routes: Object.values(routes).map(({ method, path }) => ({ method, path, auth: "none" })),
});

/** A merchant API write: the billing core, reached through the authorizer; the API throttle bounds it further. */
const API_WRITE_CONCURRENCY = 10;
/** A scheduled job runs alone; an overlapping run would only compete for the same leases. */
const SINGLETON = 1;

export const BILLING_FUNCTIONS = [
  // Charging
  declare({
    name: "run-charges",
    run: runCharges,
    services: SERVICE_SETS.chargeRun,
    trigger: schedule("chargeRun"),
    timeoutSeconds: 300,
  }),
  declare({
    name: "process-charges",
    run: processCharges,
    services: SERVICE_SETS.chargeWorker,
    trigger: queue("charge", 10),
    concurrency: 5,
  }),
  declare({
    name: "sweep-attempts",
    run: sweepAttempts,
    services: SERVICE_SETS.billing,
    trigger: schedule("attemptSweep"),
    timeoutSeconds: 240,
    concurrency: SINGLETON,
  }),
  // Events: the outboxes delivered to the bus
  declare({
    name: "publish-events",
    run: publishEvents,
    services: SERVICE_SETS.eventDelivery,
    trigger: { kind: "tableStream", batchSize: 100 },
    timeoutSeconds: 60,
  }),
  declare({
    name: "replay-events",
    run: replayEvents,
    services: SERVICE_SETS.eventReplay,
    trigger: { kind: "invoked" },
    // A subscription's events, or a time range's a page at a time (the CLI sends a day's or less per invocation).
    timeoutSeconds: 900,
    concurrency: 2,
  }),
  declare({
    name: "sweep-outbox",
    run: sweepOutbox,
    services: SERVICE_SETS.eventDelivery,
    trigger: schedule("outboxSweep"),
    timeoutSeconds: 240,
    concurrency: SINGLETON,
  }),
  // Customer mails
  declare({
    name: "notify-customer",
    run: notifyCustomer,
    services: SERVICE_SETS.customerMail,
    trigger: {
      kind: "eventRule",
      eventTypes: ["charge.failed", "charge.succeeded", "subscription.canceled"],
    },
    // SES's sending rate is the account's (14/s in a new one): the bus retries what a throttle refused.
    concurrency: 5,
  }),
  // Our signed webhooks to the SaaS: every event queued per subscribed endpoint, then sent with backoff
  declare({
    name: "queue-webhooks",
    run: queueWebhooks,
    services: SERVICE_SETS.webhookFanOut,
    trigger: { kind: "eventRule", eventTypes: [...webhookEventTypes()] },
    concurrency: 5,
  }),
  declare({
    name: "send-webhooks",
    run: sendWebhooks,
    services: SERVICE_SETS.webhookSender,
    trigger: queue("webhook", 10),
    // Each batch's records are sent side by side, each within the 10 s timeout.
    concurrency: 5,
  }),
  declare({
    name: "send-reminders",
    run: sendReminders,
    services: SERVICE_SETS.reminders,
    trigger: schedule("reminders"),
    timeoutSeconds: 600,
    concurrency: SINGLETON,
  }),
  declare({
    name: "refresh-partner-token",
    run: refreshPartnerToken,
    services: SERVICE_SETS.partnerToken,
    trigger: schedule("partnerToken"),
    concurrency: SINGLETON,
  }),
  // Merchant API
  declare({
    name: "authorize-merchant",
    run: authorizeMerchant,
    services: SERVICE_SETS.authorizer,
    trigger: { kind: "authorizer" },
  }),
  declare({
    name: "create-checkout",
    run: createCheckout,
    services: SERVICE_SETS.checkouts,
    trigger: api("createCheckout"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "create-portal-session",
    run: createPortalSession,
    services: SERVICE_SETS.portalSessions,
    trigger: api("createPortalSession"),
  }),
  declare({
    name: "create-subscription",
    run: createSubscription,
    services: SERVICE_SETS.merchantApi,
    trigger: api("createSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "get-subscription",
    run: getSubscription,
    services: SERVICE_SETS.queries,
    trigger: api("getSubscription"),
  }),
  declare({
    name: "read-documents",
    run: readDocuments,
    services: SERVICE_SETS.documentQueries,
    trigger: api("listInvoices", "getInvoice", "listCreditNotes", "getCreditNote"),
  }),
  declare({
    name: "list-subscriptions",
    run: listSubscriptions,
    services: SERVICE_SETS.queries,
    trigger: api("listSubscriptions"),
  }),
  declare({
    name: "update-subscription",
    run: updateSubscription,
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("updateSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "adjust-subscription",
    run: adjustSubscription,
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("adjustSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "update-payment-method",
    run: updatePaymentMethod,
    services: SERVICE_SETS.merchantApi,
    trigger: api("updatePaymentMethod"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "pause-subscription",
    run: pauseSubscription,
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("pauseSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "resume-subscription",
    run: resumeSubscription,
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("resumeSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "cancel-subscription",
    run: cancelSubscription,
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("cancelSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "create-charge",
    run: createCharge,
    services: SERVICE_SETS.merchantApi,
    trigger: api("createCharge"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "list-charges",
    run: listCharges,
    services: SERVICE_SETS.documentQueries,
    trigger: api("listCharges"),
  }),
  declare({
    name: "get-receipt",
    run: getReceipt,
    services: SERVICE_SETS.receipts,
    trigger: api("getReceipt"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "create-refund",
    run: createRefund,
    services: SERVICE_SETS.merchantApi,
    trigger: api("createRefund"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "create-price",
    run: createPrice,
    services: SERVICE_SETS.prices,
    trigger: api("createPrice"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "list-prices",
    run: listPrices,
    services: SERVICE_SETS.priceQueries,
    trigger: api("listPrices"),
  }),
  declare({
    name: "get-price",
    run: getPrice,
    services: SERVICE_SETS.priceQueries,
    trigger: api("getPrice"),
  }),
  declare({
    name: "update-price",
    run: updatePrice,
    services: SERVICE_SETS.prices,
    trigger: api("updatePrice"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "create-coupon",
    run: createCoupon,
    services: SERVICE_SETS.coupons,
    trigger: api("createCoupon"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "list-coupons",
    run: listCoupons,
    services: SERVICE_SETS.couponQueries,
    trigger: api("listCoupons"),
  }),
  declare({
    name: "get-coupon",
    run: getCoupon,
    services: SERVICE_SETS.couponQueries,
    trigger: api("getCoupon"),
  }),
  declare({
    name: "create-webhook-endpoint",
    run: createWebhookEndpoint,
    services: SERVICE_SETS.webhookEndpoints,
    trigger: api("createWebhookEndpoint"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "list-webhook-endpoints",
    run: listWebhookEndpoints,
    services: SERVICE_SETS.webhookQueries,
    trigger: api("listWebhookEndpoints"),
  }),
  declare({
    name: "delete-webhook-endpoint",
    run: deleteWebhookEndpoint,
    services: SERVICE_SETS.webhookEndpoints,
    trigger: api("deleteWebhookEndpoint"),
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "list-webhook-deliveries",
    run: listWebhookDeliveries,
    services: SERVICE_SETS.webhookQueries,
    trigger: api("listWebhookDeliveries"),
  }),
  declare({
    name: "get-openapi",
    run: getOpenapi,
    services: SERVICE_SETS.none,
    trigger: {
      kind: "http",
      api: "merchant",
      routes: [{ method: "GET", path: OPENAPI_PATH, auth: "none" }],
    },
  }),
  // Our pages for customers
  declare({
    name: "serve-checkout-page",
    run: serveCheckoutPage,
    services: SERVICE_SETS.checkoutPages,
    trigger: pages(CHECKOUT_PAGE_ROUTES),
    // A new try calls ready: a gateway caller.
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "serve-portal-page",
    run: servePortalPage,
    services: SERVICE_SETS.portalPages,
    trigger: pages(PORTAL_PAGE_ROUTES),
    // A new card's window calls ready, a cancel of a gateway plan the gateway: a gateway caller.
    concurrency: API_WRITE_CONCURRENCY,
  }),
  declare({
    name: "serve-document",
    run: serveDocument,
    services: SERVICE_SETS.documentPages,
    trigger: pages(DOCUMENT_PAGE_ROUTES),
  }),
  declare({
    name: "answer-unmatched-route",
    run: answerUnmatchedRoute,
    services: SERVICE_SETS.none,
    trigger: { kind: "unmatched" },
  }),
  // Webhook intake: acknowledge fast, process from the intake queue
  declare({
    name: "receive-status-callback",
    run: receiveStatusCallback,
    services: SERVICE_SETS.intakeReceiver,
    trigger: api("receiveWindowResult", "receiveWindowResultForm"),
  }),
  declare({
    name: "receive-gateway-webhook",
    run: receiveGatewayWebhook,
    services: SERVICE_SETS.gatewayWebhook,
    trigger: api("receiveGatewayWebhook"),
  }),
  declare({
    name: "receive-partner-event",
    run: receivePartnerEvent,
    services: SERVICE_SETS.intakeReceiver,
    trigger: api("receivePartnerEvent"),
  }),
  declare({
    name: "receive-recurring-notice",
    run: receiveRecurringNotice,
    services: SERVICE_SETS.recurringNoticeReceiver,
    trigger: api("receiveRecurringNotice"),
  }),
  declare({
    name: "process-intake",
    run: processIntake,
    services: SERVICE_SETS.intakeWorker,
    trigger: queue("intake", 10),
    concurrency: 5,
  }),
  // Back office
  declare({
    name: "reconcile-ledger",
    run: reconcileLedger,
    services: SERVICE_SETS.reconciliation,
    trigger: schedule("reconciliation"),
    timeoutSeconds: 600,
    concurrency: SINGLETON,
  }),
  declare({
    name: "measure-revenue",
    run: measureRevenue,
    services: SERVICE_SETS.queries,
    trigger: schedule("revenue"),
    timeoutSeconds: 600,
    concurrency: SINGLETON,
  }),
  declare({
    name: "register-partner-webhook",
    run: registerPartnerWebhook,
    services: SERVICE_SETS.partnerWebhook,
    trigger: schedule("partnerWebhook"),
    concurrency: SINGLETON,
  }),
] as const satisfies readonly AnyFunctionSpec[];

export type FunctionName = (typeof BILLING_FUNCTIONS)[number]["name"];

/** The row of a function by name, with its run's and set's types. */
export function functionNamed<N extends FunctionName>(
  name: N,
): Extract<(typeof BILLING_FUNCTIONS)[number], { name: N }> {
  const spec = BILLING_FUNCTIONS.find((candidate) => candidate.name === name);
  if (spec === undefined) throw new Error(`no function ${name} in the function table`);
  return spec as Extract<(typeof BILLING_FUNCTIONS)[number], { name: N }>;
}
