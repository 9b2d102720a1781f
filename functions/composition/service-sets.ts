import { gatewayCalendar } from "../gateway/calendar";
import {
  apiKeyDigests,
  chargeQueue,
  chargeQueueConsumer,
  clock,
  couponStore,
  couponStoreReader,
  documentFiles,
  events,
  gateway,
  gatewaySettlements,
  gatewayTransactions,
  idempotency,
  ids,
  intakeQueue,
  intakeQueueConsumer,
  ledger,
  mail,
  pages,
  partnerTokenRefresher,
  partnerWebhooks,
  policy,
  portal,
  priceStore,
  priceStoreReader,
  readRepository,
  reminderIndex,
  repository,
  webhookQueue,
  webhookQueueConsumer,
  webhookSecrets,
  webhookStore,
  webhookStoreReader,
  webhookTransport,
  webhookUrls,
} from "./components";
import { extended, serviceSet } from "./service-set";

// Every service set, named by the rows of functions/function-table.ts. A function's generated entry imports only its
// own set, so its bundle keeps only that set; the sets are built by calls, which esbuild drops when unused only when
// marked pure.

/**
 * The billing core without the charge queue: what charges, signs up and takes in results, the coupons a sign-up or an
 * edit redeems, and the catalog's prices a sign-up takes (read).
 */
const core = /* @__PURE__ */ serviceSet(
  { repository, couponStore, priceStoreReader, gateway, webhookUrls, policy, ids, clock },
  async (c) => {
    return {
      repository: c.repository(),
      coupons: c.couponStore(),
      prices: c.priceStoreReader(),
      gateway: (await c.gateway()).payments,
      policy: c.policy(),
      ids: c.ids(),
      clock: c.clock(),
      ...c.webhookUrls(),
    };
  },
);

/** get-openapi: nothing. */
export const none = /* @__PURE__ */ serviceSet({}, () => ({}));

/** The charge run: the due index and the queue, nothing of the gateway. */
export const chargeRun = /* @__PURE__ */ serviceSet({ repository, chargeQueue, clock }, (c) => ({
  repository: c.repository(),
  queue: c.chargeQueue(),
  clock: c.clock(),
}));

/** The core and the charge queue it hands work back to (the attempt sweep, plan changes and cancellations). */
export const billing = /* @__PURE__ */ extended(core, { chargeQueue }, (c) => ({ queue: c.chargeQueue() }));

/** The charge worker: the core, and the queue whose records it changes the visibility of. */
export const chargeWorker = /* @__PURE__ */ extended(core, { chargeQueueConsumer }, (c) => ({
  consumer: c.chargeQueueConsumer(),
}));

/** The merchant API's sign-ups, charges and refunds: the core and the idempotency records. */
export const merchantApi = /* @__PURE__ */ extended(core, { idempotency }, (c) => ({
  idempotency: c.idempotency(),
}));

/** create-checkout: the merchant API's sign-ups, and our checkout page's links (the window returns there). */
export const checkouts = /* @__PURE__ */ extended(merchantApi, { pages }, async (c) => {
  const { checkoutLinks } = await c.pages();
  return { checkoutReturnUrl: checkoutLinks.returnUrl, checkoutPageUrl: checkoutLinks.pageUrl };
});

/** The hosted checkout's pages: the core (a new try opens a window), the links and the merchant's name. */
export const checkoutPages = /* @__PURE__ */ extended(core, { pages }, async (c) => {
  const { links, checkoutLinks, merchantName } = await c.pages();
  return { links, checkoutReturnUrl: checkoutLinks.returnUrl, merchantName };
});

/**
 * POST /v1/portal-sessions: whether the customer has subscriptions, the idempotency records (which write the table
 * anyway: one grant) and the links.
 */
export const portalSessions = /* @__PURE__ */ serviceSet({ repository, idempotency, pages }, async (c) => ({
  repository: c.repository(),
  idempotency: c.idempotency(),
  links: (await c.pages()).links,
}));

/** The customer portal: the core and the charge queue (its changes hand work over, as the merchant API's do). */
export const portalPages = /* @__PURE__ */ extended(billing, { pages, portal }, async (c) => {
  const { links, merchantName } = await c.pages();
  return { links, merchantName, portalActions: c.portal() };
});

/** The merchant API's plan changes and cancellations: these also hand work to the charge queue. */
export const merchantApiChanges = /* @__PURE__ */ extended(billing, { idempotency }, (c) => ({
  idempotency: c.idempotency(),
}));

/** notify-customer: the subscription an event is about, the mails' claims, and the mail service. */
export const customerMail = /* @__PURE__ */ serviceSet({ repository, mail, clock }, async (c) => ({
  repository: c.repository(),
  clock: c.clock(),
  ...(await c.mail()),
}));

/** send-reminders: the same, and the indexes the date-driven mails are found by. */
export const reminders = /* @__PURE__ */ extended(customerMail, { reminderIndex }, (c) => ({
  reminders: c.reminderIndex(),
}));

/** publish-events and sweep-outbox: the outboxes and the bus they are delivered to. */
export const eventDelivery = /* @__PURE__ */ serviceSet({ repository, events, clock }, (c) => ({
  repository: c.repository(),
  events: c.events(),
  clock: c.clock(),
}));

/** replay-events: the delivery's, and the webhook endpoints and their queue (a replay to one endpoint). */
export const eventReplay = /* @__PURE__ */ extended(
  eventDelivery,
  { webhookStoreReader, webhookQueue, ids },
  (c) => ({ webhookStore: c.webhookStoreReader(), webhookQueue: c.webhookQueue(), ids: c.ids() }),
);

/** create-webhook-endpoint and delete-webhook-endpoint: the endpoints, their URLs checked, idempotency records. */
export const webhookEndpoints = /* @__PURE__ */ serviceSet(
  { webhookStore, webhookTransport, idempotency, ids, clock },
  (c) => ({
    store: c.webhookStore(),
    transport: c.webhookTransport(),
    idempotency: c.idempotency(),
    ids: c.ids(),
    clock: c.clock(),
  }),
);

/** create-price and update-price: the catalog's prices, the currencies a price may be in, idempotency records. */
export const prices = /* @__PURE__ */ serviceSet({ priceStore, idempotency, ids, policy, clock }, (c) => ({
  prices: c.priceStore(),
  idempotency: c.idempotency(),
  ids: c.ids(),
  policy: c.policy(),
  clock: c.clock(),
}));

/** list-prices and get-price: the catalog's prices, read. */
export const priceQueries = /* @__PURE__ */ serviceSet({ priceStoreReader }, (c) => ({
  prices: c.priceStoreReader(),
}));

/** create-coupon: the coupons, idempotency records. */
export const coupons = /* @__PURE__ */ serviceSet({ couponStore, idempotency, ids, clock }, (c) => ({
  coupons: c.couponStore(),
  idempotency: c.idempotency(),
  ids: c.ids(),
  clock: c.clock(),
}));

/** list-coupons and get-coupon: the coupons, read. */
export const couponQueries = /* @__PURE__ */ serviceSet({ couponStoreReader, clock }, (c) => ({
  coupons: c.couponStoreReader(),
  clock: c.clock(),
}));

/** list-webhook-endpoints and list-webhook-deliveries: the endpoints and deliveries, read. */
export const webhookQueries = /* @__PURE__ */ serviceSet({ webhookStoreReader, clock }, (c) => ({
  store: c.webhookStoreReader(),
  clock: c.clock(),
}));

/** queue-webhooks: the endpoints, read, and the delivery queue. */
export const webhookFanOut = /* @__PURE__ */ serviceSet({ webhookStoreReader, webhookQueue, ids }, (c) => ({
  store: c.webhookStoreReader(),
  queue: c.webhookQueue(),
  ids: c.ids(),
}));

/** send-webhooks: the deliveries written, the way out, and its own queue (a retry waits there). */
export const webhookSender = /* @__PURE__ */ serviceSet(
  { webhookStore, webhookTransport, webhookQueueConsumer, clock },
  (c) => ({
    store: c.webhookStore(),
    transport: c.webhookTransport(),
    consumer: c.webhookQueueConsumer(),
    clock: c.clock(),
  }),
);

/** The merchant API's reads: the table only. */
export const queries = /* @__PURE__ */ serviceSet({ readRepository }, (c) => ({
  repository: c.readRepository(),
}));

/** read-documents and list-charges: the documents and the ledger read, and the links to documents' pages. */
export const documentQueries = /* @__PURE__ */ serviceSet({ readRepository, pages }, async (c) => ({
  repository: c.readRepository(),
  links: (await c.pages()).links,
}));

/** serve-document: the documents read, their links, the bucket their PDFs are kept in and the typefaces. */
export const documentPages = /* @__PURE__ */ serviceSet(
  { readRepository, pages, documentFiles },
  async (c) => ({
    repository: c.readRepository(),
    links: (await c.pages()).links,
    ...c.documentFiles(),
  }),
);

/** get-receipt: the ledger read, and the gateway asked for the receipt page. */
export const receipts = /* @__PURE__ */ serviceSet({ readRepository, gateway }, async (c) => ({
  repository: c.readRepository(),
  gateway: (await c.gateway()).payments,
}));

/** The merchant API's authorizer. */
export const authorizer = /* @__PURE__ */ serviceSet({ apiKeyDigests }, (c) => ({
  apiKeyDigests: c.apiKeyDigests(),
}));

/** receive-status-callback, receive-partner-event, receive-recurring-notice: the intake queue only. */
export const intakeReceiver = /* @__PURE__ */ serviceSet({ intakeQueue, clock }, (c) => ({
  queue: c.intakeQueue(),
  clock: c.clock(),
}));

/** receive-recurring-notice: the queue, and the table read for the plan's secret before anything is queued. */
export const recurringNoticeReceiver = /* @__PURE__ */ serviceSet(
  { intakeQueue, readRepository, clock },
  (c) => ({ queue: c.intakeQueue(), repository: c.readRepository(), clock: c.clock() }),
);

/** receive-gateway-webhook: the queue, the webhook secrets and the table (de-duplication records). */
export const gatewayWebhook = /* @__PURE__ */ serviceSet(
  { intakeQueue, repository, webhookSecrets, clock },
  (c) => ({
    queue: c.intakeQueue(),
    repository: c.repository(),
    clock: c.clock(),
    ...c.webhookSecrets(),
  }),
);

/** process-intake: the core, and its own queue (retries change the message visibility). */
export const intakeWorker = /* @__PURE__ */ extended(core, { intakeQueueConsumer }, (c) => ({
  consumer: c.intakeQueueConsumer(),
}));

/**
 * reconcile-ledger: the reconciliation API and the ledger index; the table's writes for a chargeback deduction no
 * webhook brought, and for the payouts (each movement's settlement, each day's payouts).
 */
export const reconciliation = /* @__PURE__ */ serviceSet(
  { gatewayTransactions, gatewaySettlements, ledger, repository, clock },
  async (c) => {
    const repository = c.repository();
    return {
      transactions: await c.gatewayTransactions(),
      ...(await c.gatewaySettlements()),
      calendar: gatewayCalendar,
      ledger: c.ledger(),
      repository,
      settlementStore: repository,
      clock: c.clock(),
    };
  },
);

/** register-partner-webhook: the partner API and our public receiver. */
export const partnerWebhook = /* @__PURE__ */ serviceSet({ partnerWebhooks, webhookUrls }, async (c) => ({
  partner: await c.partnerWebhooks(),
  endpointUrl: c.webhookUrls().partnerEndpointUrl,
}));

/** refresh-partner-token: the only writer of the partner JWT's secret. */
export const partnerToken = /* @__PURE__ */ serviceSet({ partnerTokenRefresher, clock }, async (c) => ({
  ...(await c.partnerTokenRefresher()),
  clock: c.clock(),
}));
