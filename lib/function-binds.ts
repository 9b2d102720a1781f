import type { ILayerVersion } from "aws-cdk-lib/aws-lambda";
import type { ComponentName } from "../functions/composition/service-set";
import type { AnyFunctionSpec, QueueName } from "../functions/function-table";
import type { BillingFunction, QueueAccess, TableAccess } from "./billing-function";
import type { BillingConfig } from "./config";
import type { BillingStatefulResources, WorkQueue } from "./stateful-stack";

/** What a bind may draw on: the stateful resources, the configuration, and where our webhooks are reached. */
export interface BindContext {
  readonly resources: BillingStatefulResources;
  readonly config: BillingConfig;
  readonly webhookBaseUrl: string;
  /** Where customers reach our pages. */
  readonly pagesBaseUrl: string;
  /** The typefaces documents are set in, as a layer (made once per stack, on the first function that binds it). */
  readonly documentFonts: () => ILayerVersion;
}

/** Sets one group of a function's variables together with the grants they need. */
export type Bind = (fn: BillingFunction, context: BindContext) => void;

const tableOf =
  (access: TableAccess): Bind =>
  (fn, { resources }) =>
    fn.bindTable(resources.table, resources.tableIndexes, access);

/** Each queue's variable and its queue among the stateful resources. */
const QUEUES = {
  charge: { variable: "CHARGE_QUEUE_URL", of: (resources) => resources.chargeQueue },
  intake: { variable: "INTAKE_QUEUE_URL", of: (resources) => resources.intakeQueue },
  webhook: { variable: "WEBHOOK_QUEUE_URL", of: (resources) => resources.webhookQueue },
} as const satisfies Record<
  QueueName,
  { variable: `${string}_QUEUE_URL`; of: (resources: BillingStatefulResources) => WorkQueue }
>;

const queueOf =
  (name: QueueName, access: QueueAccess): Bind =>
  (fn, { resources }) =>
    fn.bindQueue(QUEUES[name].variable, QUEUES[name].of(resources).queue, access);

/** The binds every function in the table is made of. */
export const bind = {
  table: tableOf("readWrite"),
  tableRead: tableOf("read"),
  chargeQueueSend: queueOf("charge", "send"),
  chargeQueueConsume: queueOf("charge", "consume"),
  intakeQueueSend: queueOf("intake", "send"),
  intakeQueueConsume: queueOf("intake", "consume"),
  webhookQueueSend: queueOf("webhook", "send"),
  webhookQueueConsume: queueOf("webhook", "consume"),
  eventBus: ((fn, { resources }) => fn.bindEventBus(resources.eventBus)) satisfies Bind,
  gateway: ((fn, { resources, config }) => {
    fn.bindGateway(resources.secrets.gateway, config.gatewayUrls);
    if (config.gatewayRebillEndpoint !== undefined) {
      fn.bindSetting("GATEWAY_REBILL_ENDPOINT", config.gatewayRebillEndpoint);
    }
  }) satisfies Bind,
  declineCodes: ((fn, { config }) => {
    if (config.gatewayDeclineCodes !== undefined)
      fn.bindSetting("GATEWAY_DECLINE_CODES", JSON.stringify(config.gatewayDeclineCodes));
  }) satisfies Bind,
  productLink: ((fn, { config }) => {
    if (config.productLink !== undefined) fn.bindSetting("GATEWAY_PRODUCT_LINK", config.productLink);
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
  pages: ((fn, { resources, config, pagesBaseUrl }) => {
    fn.bindSecret("PAGE_LINK_SECRET_ARN", resources.secrets.pageLinks, "read");
    fn.bindSetting("PUBLIC_PAGES_BASE_URL", pagesBaseUrl);
    if (config.merchantName !== undefined) fn.bindSetting("MERCHANT_NAME", config.merchantName);
  }) satisfies Bind,
  portalActions: ((fn, { config }) => {
    if (config.portalActions !== undefined)
      fn.bindSetting("PORTAL_ACTIONS", JSON.stringify(config.portalActions));
  }) satisfies Bind,
  // SendEmail from the merchant's sender identity only; the page-link key signs the mails' portal links.
  mail: ((fn, context) => {
    bind.pages(fn, context);
    const { config } = context;
    if (config.mail === undefined) return;
    fn.bindSetting("MAIL_SETTINGS", JSON.stringify(config.mail));
    fn.bindMailSender(config.mail.from, config.mail.configuration_set);
  }) satisfies Bind,
  documentFiles: ((fn, { resources, documentFonts }) =>
    fn.bindDocumentFiles(
      resources.documentBucket,
      resources.documentFilesAccess,
      documentFonts(),
    )) satisfies Bind,
  // The merchant's name is the documents' seller when the policy names none.
  chargePolicy: ((fn, { config }) => {
    if (config.chargePolicy !== undefined)
      fn.bindSetting("CHARGE_POLICY", JSON.stringify(config.chargePolicy));
    if (config.merchantName !== undefined) fn.bindSetting("MERCHANT_NAME", config.merchantName);
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
  gateway: [bind.gateway, bind.declineCodes, bind.productLink],
  gatewayTransactions: [bind.gateway],
  gatewaySettlements: [bind.gateway],
  partnerWebhooks: [bind.gateway, bind.partnerToken],
  partnerTokenRefresher: [bind.gateway, bind.partnerToken],
  webhookUrls: [bind.webhookBaseUrl],
  policy: [bind.chargePolicy],
  webhookSecrets: [bind.webhookSecrets],
  apiKeyDigests: [bind.merchantApiKeys],
  pages: [bind.pages],
  portal: [bind.portalActions],
  mail: [bind.mail],
  documentFiles: [bind.documentFiles],
  reminderIndex: [bind.tableRead],
  priceStore: [bind.table],
  priceStoreReader: [bind.tableRead],
  couponStore: [bind.table],
  couponStoreReader: [bind.tableRead],
  webhookStore: [bind.table],
  webhookStoreReader: [bind.tableRead],
  webhookQueue: [bind.webhookQueueSend],
  webhookQueueConsumer: [bind.webhookQueueConsume],
  // Never binds WEBHOOK_URL_POLICY: on AWS webhooks go to https URLs resolving to public addresses only.
  webhookTransport: [],
} satisfies Record<ComponentName, readonly Bind[]>;

/** A function's binds: those of its service set's components, each once. */
export function bindsOf(spec: AnyFunctionSpec): readonly Bind[] {
  return [...new Set(spec.services.components.flatMap((name) => COMPONENT_BINDS[name]))];
}
