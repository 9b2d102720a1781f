import { z } from "zod";
import { type HttpMethod, MERCHANT_API_ROUTES } from "../functions/api/merchant-api-routes";
import {
  authorizerEnvironment,
  billingEnvironment,
  chargeRunEnvironment,
  gatewayWebhookEnvironment,
  intakeEnvironment,
  intakeProcessorEnvironment,
  partnerTokenEnvironment,
  partnerWebhookEnvironment,
  queryEnvironment,
  reconciliationEnvironment,
} from "../functions/runtime/environment";
import type { BillingFunction, QueueAccess, SecretAccess, TableAccess } from "./billing-function";
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
  | { readonly kind: "http"; readonly routes: readonly HttpRoute[] }
  | { readonly kind: "authorizer" };

export interface FunctionSpec {
  /** functions/handlers/<handler>.ts */
  readonly handler: string;
  /** The handler's environment schema: synth checks the binds against it. */
  readonly environment: z.ZodObject;
  readonly binds: readonly Bind[];
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
  chargeQueue: (access: QueueAccess) => queueOf("charge", access),
  intakeQueue: (access: QueueAccess) => queueOf("intake", access),
  eventBus: ((fn, { resources }) => fn.bindEventBus(resources.eventBus)) satisfies Bind,
  gateway: ((fn, { resources, config }) => {
    fn.bindGateway(resources.secrets.gateway, config.gatewayUrls);
    if (config.gatewayRebillEndpoint !== undefined) {
      fn.bindSetting("GATEWAY_REBILL_ENDPOINT", config.gatewayRebillEndpoint);
    }
  }) satisfies Bind,
  partnerToken:
    (access: SecretAccess): Bind =>
    (fn, { resources }) =>
      fn.bindSecret("PARTNER_TOKEN_SECRET_ARN", resources.secrets.partnerToken, access),
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

/** The billing core (the charge engine, sign-up, plan changes): what billingEnvironment reads. */
const billingCore = (chargeQueue: QueueAccess): readonly Bind[] => [
  bind.table,
  bind.chargeQueue(chargeQueue),
  bind.eventBus,
  bind.gateway,
  bind.webhookBaseUrl,
  bind.chargePolicy,
];

/** get-openapi reads no variable. */
const NO_VARIABLES = z.object({});

/** A merchant API write: the billing core, reached through the authorizer; the API throttle bounds it further. */
const API_WRITE_CONCURRENCY = 10;
/** A scheduled job runs alone; an overlapping run would only compete for the same leases. */
const SINGLETON = 1;

/**
 * Every Lambda function: one line per handler in functions/handlers/. The binds must cover the handler's environment
 * schema exactly (checked at synth); test/infra checks that every handler file has its line.
 */
export const BILLING_FUNCTIONS: readonly FunctionSpec[] = [
  // Charging
  {
    handler: "run-charges",
    environment: chargeRunEnvironment,
    binds: [bind.table, bind.chargeQueue("send")],
    trigger: schedule("chargeRun"),
    timeoutSeconds: 300,
  },
  {
    handler: "process-charges",
    environment: billingEnvironment,
    binds: billingCore("consume"),
    trigger: queue("charge", 10),
    concurrency: 5,
  },
  {
    handler: "sweep-attempts",
    environment: billingEnvironment,
    binds: billingCore("send"),
    trigger: schedule("janitor"),
    timeoutSeconds: 240,
    concurrency: SINGLETON,
  },
  {
    handler: "refresh-partner-token",
    environment: partnerTokenEnvironment,
    binds: [bind.gateway, bind.partnerToken("readWrite")],
    trigger: schedule("partnerToken"),
    concurrency: SINGLETON,
  },
  // Merchant API
  {
    handler: "authorize-merchant",
    environment: authorizerEnvironment,
    binds: [bind.merchantApiKeys],
    trigger: { kind: "authorizer" },
  },
  {
    handler: "create-checkout",
    environment: billingEnvironment,
    binds: billingCore("url"),
    trigger: api("createCheckout"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "create-subscription",
    environment: billingEnvironment,
    binds: billingCore("url"),
    trigger: api("createSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "get-subscription",
    environment: queryEnvironment,
    binds: [bind.tableRead],
    trigger: api("getSubscription"),
  },
  {
    handler: "adjust-subscription",
    environment: billingEnvironment,
    binds: billingCore("url"),
    trigger: api("adjustSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "cancel-subscription",
    environment: billingEnvironment,
    binds: billingCore("url"),
    trigger: api("cancelSubscription"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "create-charge",
    environment: billingEnvironment,
    binds: billingCore("url"),
    trigger: api("createCharge"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "list-charges",
    environment: queryEnvironment,
    binds: [bind.tableRead],
    trigger: api("listCharges"),
  },
  {
    handler: "create-refund",
    environment: billingEnvironment,
    binds: billingCore("url"),
    trigger: api("createRefund"),
    concurrency: API_WRITE_CONCURRENCY,
  },
  {
    handler: "get-openapi",
    environment: NO_VARIABLES,
    binds: [],
    trigger: { kind: "http", routes: [{ method: "GET", path: "/openapi.json", auth: "none" }] },
  },
  // Webhook intake: acknowledge fast, process from the intake queue
  {
    handler: "receive-status-callback",
    environment: intakeEnvironment,
    binds: [bind.intakeQueue("send")],
    trigger: api("receiveWindowResult", "receiveWindowResultForm"),
  },
  {
    handler: "receive-gateway-webhook",
    environment: gatewayWebhookEnvironment,
    binds: [bind.intakeQueue("send"), bind.webhookSecrets, bind.table],
    trigger: api("receiveGatewayWebhook"),
  },
  {
    handler: "receive-partner-event",
    environment: intakeEnvironment,
    binds: [bind.intakeQueue("send")],
    trigger: api("receivePartnerEvent"),
  },
  {
    handler: "receive-recurring-notice",
    environment: intakeEnvironment,
    binds: [bind.intakeQueue("send")],
    trigger: api("receiveRecurringNotice"),
  },
  {
    handler: "process-intake",
    environment: intakeProcessorEnvironment,
    binds: [...billingCore("url"), bind.intakeQueue("consume")],
    trigger: queue("intake", 10),
    concurrency: 5,
  },
  // Back office
  {
    handler: "reconcile-ledger",
    environment: reconciliationEnvironment,
    binds: [bind.gateway, bind.tableRead],
    trigger: schedule("reconciliation"),
    timeoutSeconds: 600,
    concurrency: SINGLETON,
  },
  {
    handler: "register-partner-webhook",
    environment: partnerWebhookEnvironment,
    // The token store may refresh the JWT (one forced refresh on AUTH_3001) and store it.
    binds: [bind.gateway, bind.partnerToken("readWrite"), bind.webhookBaseUrl],
    trigger: schedule("partnerWebhook"),
    concurrency: SINGLETON,
  },
];
