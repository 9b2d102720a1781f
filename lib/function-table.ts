import { type HttpMethod, MERCHANT_API_ROUTES } from "../functions/api/merchant-api-routes";
import type { ComponentName, ServiceSet } from "../functions/composition/service-set";
import * as SERVICE_SETS from "../functions/composition/service-sets";
import type { BillingFunction, QueueAccess, TableAccess } from "./billing-function";
import type { BillingConfig, ScheduleName } from "./config";
import type { BillingStatefulResources } from "./stateful-stack";

/** What a bind may draw on: the stateful resources, the configuration, and where our webhooks are reached. */
export interface BindContext {
  readonly resources: BillingStatefulResources;
  readonly config: BillingConfig;
  readonly webhookBaseUrl: string;
}

/** Sets one group of a function's variables together with the grants they need. */
export type Bind = (fn: BillingFunction, context: BindContext) => void;

export type QueueName = "charge" | "intake";

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
  | { readonly kind: "http"; readonly routes: readonly HttpRoute[] }
  /** Only the ops CLI invokes it (its name is a stack output: lib/stack-outputs.ts). */
  | { readonly kind: "invoked" }
  | { readonly kind: "authorizer" };

export interface FunctionSpec {
  /** functions/handlers/<handler>.ts */
  readonly handler: string;
  /**
   * The service set its definition (functions/handlers/<handler>.ts) builds: the function's variables and its binds
   * (grants included) follow from the set's components; synth checks the two agree.
   */
  readonly services: ServiceSet<unknown>;
  readonly trigger: Trigger;
  /** Seconds (default 29); a queue consumer's timeout is derived from its queue's visibility timeout instead. */
  readonly timeoutSeconds?: number;
  /**
   * At most this many at once: the event source's maximum concurrency for a queue consumer, reserved concurrency
   * otherwise. Every gateway caller needs one (the gateway's rate limits are the merchant's).
   */
  readonly concurrency?: number;
}

const tableOf =
  (access: TableAccess): Bind =>
  (fn, { resources }) =>
    fn.bindTable(resources.table, resources.tableIndexes, access);

const queueOf =
  (name: QueueName, access: QueueAccess): Bind =>
  (fn, { resources }) =>
    name === "charge"
      ? fn.bindQueue("CHARGE_QUEUE_URL", resources.chargeQueue.queue, access)
      : fn.bindQueue("INTAKE_QUEUE_URL", resources.intakeQueue.queue, access);

/** The binds every function in the table is made of. */
export const bind = {
  table: tableOf("readWrite"),
  tableRead: tableOf("read"),
  chargeQueueSend: queueOf("charge", "send"),
  chargeQueueConsume: queueOf("charge", "consume"),
  intakeQueueSend: queueOf("intake", "send"),
  intakeQueueConsume: queueOf("intake", "consume"),
  eventBus: ((fn, { resources }) => fn.bindEventBus(resources.eventBus)) satisfies Bind,
  gateway: ((fn, { resources, config }) => {
    fn.bindGateway(resources.secrets.gateway, config.gatewayUrls);
    if (config.gatewayRebillEndpoint !== undefined) {
      fn.bindSetting("GATEWAY_REBILL_ENDPOINT", config.gatewayRebillEndpoint);
    }
  }) satisfies Bind,
  // A partner API caller may refresh the JWT (one forced refresh on AUTH_3001) and store it.
  partnerToken: ((fn, { resources }) =>
    fn.bindSecret("PARTNER_TOKEN_SECRET_ARN", resources.secrets.partnerToken, "readWrite")) satisfies Bind,
  webhookSecrets: ((fn, { resources, config }) => {
    fn.bindSecret("WEBHOOK_SECRETS_ARN", resources.secrets.webhook, "read");
    if (config.webhookHeaderPrefix !== undefined) {
      fn.bindSetting("WEBHOOK_HEADER_PREFIX", config.webhookHeaderPrefix);
    }
  }) satisfies Bind,
  merchantApiKeys: ((fn, { resources }) =>
    fn.bindSecret(
      "MERCHANT_API_KEY_HASH_SECRET_ARN",
      resources.secrets.merchantApiKey,
      "read",
    )) satisfies Bind,
  webhookBaseUrl: ((fn, { webhookBaseUrl }) =>
    fn.bindSetting("PUBLIC_WEBHOOK_BASE_URL", webhookBaseUrl)) satisfies Bind,
  chargePolicy: ((fn, { config }) => {
    if (config.chargePolicy !== undefined)
      fn.bindSetting("CHARGE_POLICY", JSON.stringify(config.chargePolicy));
  }) satisfies Bind,
};

/** What each component of the composition needs of the stack: its variables with their grants. */
export const COMPONENT_BINDS = {
  clock: [],
  ids: [],
  repository: [bind.table],
  readRepository: [bind.tableRead],
  ledger: [bind.tableRead],
  idempotency: [bind.table],
  chargeQueue: [bind.chargeQueueSend],
  chargeQueueConsumer: [bind.chargeQueueConsume],
  intakeQueue: [bind.intakeQueueSend],
  intakeQueueConsumer: [bind.intakeQueueConsume],
  events: [bind.eventBus],
  gateway: [bind.gateway],
  gatewayTransactions: [bind.gateway],
  partnerWebhooks: [bind.gateway, bind.partnerToken],
  partnerTokenRefresher: [bind.gateway, bind.partnerToken],
  webhookUrls: [bind.webhookBaseUrl],
  policy: [bind.chargePolicy],
  webhookSecrets: [bind.webhookSecrets],
  apiKeyDigests: [bind.merchantApiKeys],
} satisfies Record<ComponentName, readonly Bind[]>;

/** A function's binds: those of its service set's components, each once. */
export function bindsOf(spec: FunctionSpec): readonly Bind[] {
  return [...new Set(spec.services.components.flatMap((name) => COMPONENT_BINDS[name]))];
}

/** Schedules and queues are named by the table; routes come from the merchant API's own route table. */
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
  return { kind: "http", routes };
}

/** A merchant API write: the billing core, reached through the authorizer; the API throttle bounds it further. */
const API_WRITE_CONCURRENCY = 10;
/** A scheduled job runs alone; an overlapping run would only compete for the same leases. */
const SINGLETON = 1;

/**
 * Every Lambda function: one line per handler in functions/handlers/, naming the service set its definition builds.
 * test/infra checks that every handler file has its line and that the line names the handler's own set.
 */
export const BILLING_FUNCTIONS: readonly FunctionSpec[] = [
  // Charging
  {
    handler: "run-charges",
    services: SERVICE_SETS.chargeRun,
    trigger: schedule("chargeRun"),
    timeoutSeconds: 300,
  },
  {
    handler: "process-charges",
    services: SERVICE_SETS.chargeWorker,
    trigger: queue("charge", 10),
    concurrency: 5,
  },
  {
    handler: "sweep-attempts",
    services: SERVICE_SETS.billing,
    trigger: schedule("attemptSweep"),
    timeoutSeconds: 240,
    concurrency: SINGLETON,
  },
  // Events: the outboxes delivered to the bus
  {
    handler: "publish-events",
    services: SERVICE_SETS.eventDelivery,
    trigger: { kind: "tableStream", batchSize: 100 },
    timeoutSeconds: 60,
  },
  {
    handler: "replay-events",
    services: SERVICE_SETS.eventDelivery,
    trigger: { kind: "invoked" },
    // A subscription's events, or a time range's a page at a time (the CLI sends a day's or less per invocation).
    timeoutSeconds: 900,
    concurrency: 2,
  },
  {
    handler: "sweep-outbox",
    services: SERVICE_SETS.eventDelivery,
    trigger: schedule("outboxSweep"),
    timeoutSeconds: 240,
    concurrency: SINGLETON,
  },
  {
    handler: "refresh-partner-token",
    services: SERVICE_SETS.partnerToken,
    trigger: schedule("partnerToken"),
    concurrency: SINGLETON,
  },
  // Merchant API
  {
    handler: "authorize-merchant",
    services: SERVICE_SETS.authorizer,
    trigger: { kind: "authorizer" },
  },
  {
    handler: "create-checkout",
    services: SERVICE_SETS.merchantApi,
    trigger: api("createCheckout"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "create-subscription",
    services: SERVICE_SETS.merchantApi,
    trigger: api("createSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "get-subscription",
    services: SERVICE_SETS.queries,
    trigger: api("getSubscription"),
  },
  {
    handler: "list-subscriptions",
    services: SERVICE_SETS.queries,
    trigger: api("listSubscriptions"),
  },
  {
    handler: "update-subscription",
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("updateSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "adjust-subscription",
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("adjustSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "update-payment-method",
    services: SERVICE_SETS.merchantApi,
    trigger: api("updatePaymentMethod"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "pause-subscription",
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("pauseSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "resume-subscription",
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("resumeSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "cancel-subscription",
    services: SERVICE_SETS.merchantApiChanges,
    trigger: api("cancelSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "create-charge",
    services: SERVICE_SETS.merchantApi,
    trigger: api("createCharge"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "list-charges",
    services: SERVICE_SETS.queries,
    trigger: api("listCharges"),
  },
  {
    handler: "get-receipt",
    services: SERVICE_SETS.receipts,
    trigger: api("getReceipt"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "create-refund",
    services: SERVICE_SETS.merchantApi,
    trigger: api("createRefund"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "get-openapi",
    services: SERVICE_SETS.none,
    trigger: { kind: "http", routes: [{ method: "GET", path: "/openapi.json", auth: "none" }] },
  },
  // Webhook intake: acknowledge fast, process from the intake queue
  {
    handler: "receive-status-callback",
    services: SERVICE_SETS.intakeReceiver,
    trigger: api("receiveWindowResult", "receiveWindowResultForm"),
  },
  {
    handler: "receive-gateway-webhook",
    services: SERVICE_SETS.gatewayWebhook,
    trigger: api("receiveGatewayWebhook"),
  },
  {
    handler: "receive-partner-event",
    services: SERVICE_SETS.intakeReceiver,
    trigger: api("receivePartnerEvent"),
  },
  {
    handler: "receive-recurring-notice",
    services: SERVICE_SETS.recurringNoticeReceiver,
    trigger: api("receiveRecurringNotice"),
  },
  {
    handler: "process-intake",
    services: SERVICE_SETS.intakeWorker,
    trigger: queue("intake", 10),
    concurrency: 5,
  },
  // Back office
  {
    handler: "reconcile-ledger",
    services: SERVICE_SETS.reconciliation,
    trigger: schedule("reconciliation"),
    timeoutSeconds: 600,
    concurrency: SINGLETON,
  },
  {
    handler: "register-partner-webhook",
    services: SERVICE_SETS.partnerWebhook,
    trigger: schedule("partnerWebhook"),
    concurrency: SINGLETON,
  },
];
