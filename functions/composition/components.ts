import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { dynamoDbClientOf, dynamoDbDocumentClientOf } from "../adapters/aws/dynamodb-client";
import { createEventBridgePublisher, eventBridgeClientOf } from "../adapters/aws/eventbridge-publisher";
import { createS3DocumentFiles, s3ClientOf } from "../adapters/aws/s3-document-files";
import { secretsManagerClientOf } from "../adapters/aws/secrets-manager-client";
import { createSecretsManagerTokenStore } from "../adapters/aws/secrets-manager-token-store";
import { createSesMailer, sesClientOf } from "../adapters/aws/ses-mailer";
import { createSqsChargeQueue } from "../adapters/aws/sqs-charge-queue";
import { sqsClientOf } from "../adapters/aws/sqs-client";
import { createSqsIntakeQueue } from "../adapters/aws/sqs-intake-queue";
import { createSqsWebhookQueue } from "../adapters/aws/sqs-webhook-queue";
import { createDynamoDbBillingRepository } from "../adapters/dynamodb/dynamodb-billing-repository";
import { createDynamoDbCouponStore } from "../adapters/dynamodb/dynamodb-coupons";
import { createDynamoDbIdempotencyStore } from "../adapters/dynamodb/dynamodb-idempotency-store";
import { createDynamoDbLedgerReader } from "../adapters/dynamodb/dynamodb-ledger-reader";
import { createDynamoDbPriceStore } from "../adapters/dynamodb/dynamodb-prices";
import { createDynamoDbReminderIndex } from "../adapters/dynamodb/dynamodb-reminder-index";
import { createDynamoDbWebhookStore } from "../adapters/dynamodb/dynamodb-webhook-store";
import {
  createGatewaySettlements,
  createGatewayTransactions,
} from "../adapters/outside/gateway-reconciliation";
import { createHttpsWebhookTransport, WEBHOOK_URL_RULES } from "../adapters/outside/https-webhook-transport";
import { createPartnerWebhooks } from "../adapters/outside/partner-webhooks";
import { createPaymentGateway } from "../adapters/outside/payment-gateway";
import { createRandomIds } from "../adapters/outside/random-ids";
import { DEFAULT_CHARGE_POLICY } from "../core/base/charge-policy";
import {
  DEFAULT_MAIL_TEMPLATES,
  DEFAULT_RENEWAL_NOTICE_DAYS,
  type MailPolicy,
} from "../core/delivery/customer-mail";
import {
  PARTNER_TOKEN_REFRESH_WINDOW_MS,
  PARTNER_TOKEN_REFRESHER_WINDOW_MS,
} from "../core/partner/partner-token-refresh";
import type { Mailer } from "../core/ports/mailer";
import type { NotifyUrl } from "../core/ports/payment-gateway";
import { createGatewayContext, joinUrl } from "../gateway/context";
import { DEFAULT_DECLINE_CODES } from "../gateway/decline-codes";
import { createPartnerTokenProvider } from "../gateway/partner-token";
import { createPaymentClient } from "../gateway/payment-client";
import { createPartnerClient } from "../gateway/resources/partner";
import { createReconciliationClient } from "../gateway/resources/reconciliation";
import {
  authorizerEnvironment,
  DOCUMENT_FONT_FILES,
  documentVariablesSchema,
  EnvironmentError,
  environmentSchema,
  intakeVariablesSchema,
  mailVariablesSchema,
  pageVariablesSchema,
  portalVariablesSchema,
  webhookVariablesSchema,
} from "../lambda/environment";
import type { DocumentFonts } from "../pages/documents/document-pdf";
import { PORTAL_ACTIONS, type PortalAction } from "../pages/portal/portal-page";
import { checkoutLinksOf, createPageLinks, documentLinksOf, portalLinkOf } from "../pages/shared/page-links";
import { lazySchema } from "../shared/lazy-schema";
import { type ComponentContext, component } from "./compose";
import {
  readApiKeyDigests,
  readGatewaySecret,
  readPageLinkKeys,
  readWebhookSecrets,
  SECRET_MAX_AGE_SECONDS,
} from "./secrets";

// Every component in one place (README, Layout): its name, the variables it reads and how it is built from them
// (compose.ts builds each once, on first use). Production builds the gateway client here, in gatewayClientOf.

const SECRET_AGE_MS = SECRET_MAX_AGE_SECONDS * 1000;

const none = lazySchema(() => environmentSchema.pick({}));
const table = lazySchema(() => environmentSchema.pick({ TABLE_NAME: true }));
const chargeQueueVariables = lazySchema(() => environmentSchema.pick({ CHARGE_QUEUE_URL: true }));
const intakeQueueVariables = lazySchema(() => intakeVariablesSchema.pick({ INTAKE_QUEUE_URL: true }));
/** The gateway's URLs, the secret holding the merchant's credentials and its REBILL form. */
const gatewayVariables = lazySchema(() =>
  environmentSchema.pick({
    GATEWAY_SECRET_ARN: true,
    PAYMENT_BASE_URL: true,
    WEBHOOK_ADMIN_BASE_URL: true,
    PARTNER_BASE_URL: true,
    GATEWAY_REBILL_ENDPOINT: true,
  }),
);
/** The payment API's adapter also reads which refusals no retry can mend, and the link of its product lines. */
const paymentGatewayVariables = lazySchema(() =>
  gatewayVariables.extend(
    environmentSchema.pick({ GATEWAY_DECLINE_CODES: true, GATEWAY_PRODUCT_LINK: true }).shape,
  ),
);
const partnerVariables = lazySchema(() =>
  gatewayVariables.extend(environmentSchema.pick({ PARTNER_TOKEN_SECRET_ARN: true }).shape),
);
const eventBusVariables = lazySchema(() => environmentSchema.pick({ EVENT_BUS_NAME: true }));
const webhookBaseVariables = lazySchema(() => environmentSchema.pick({ PUBLIC_WEBHOOK_BASE_URL: true }));
/** The charge policy, and the merchant's name its documents' seller takes when the policy names none. */
const policyVariables = lazySchema(() =>
  environmentSchema
    .pick({ CHARGE_POLICY: true })
    .extend(pageVariablesSchema.pick({ MERCHANT_NAME: true }).shape),
);
const webhookQueueVariables = lazySchema(() => webhookVariablesSchema.pick({ WEBHOOK_QUEUE_URL: true }));
const webhookUrlVariables = lazySchema(() =>
  webhookVariablesSchema.pick({
    WEBHOOK_URL_POLICY: true,
    AWS_LAMBDA_FUNCTION_NAME: true,
  }),
);
/** The gateway webhook secrets and the header prefix. */
const webhookSecretVariables = lazySchema(() =>
  intakeVariablesSchema.pick({
    WEBHOOK_SECRETS_ARN: true,
    WEBHOOK_HEADER_PREFIX: true,
  }),
);

export const clock = /* @__PURE__ */ component({
  name: "clock",
  variables: none,
  build: ({ runtime }) => runtime.clock,
});

export const ids = /* @__PURE__ */ component({
  name: "ids",
  variables: none,
  build: () => createRandomIds(),
});

function createRepository({ runtime, env }: ComponentContext<typeof table>) {
  return createDynamoDbBillingRepository({
    client: dynamoDbDocumentClientOf(runtime),
    tableName: env.TABLE_NAME,
    clock: runtime.clock,
  });
}

/** The billing table, read and written. */
export const repository = /* @__PURE__ */ component({
  name: "repository",
  variables: table,
  build: createRepository,
});

/** The same code as `repository`: the read-only component differs in its grants. */
export const readRepository = /* @__PURE__ */ component({
  name: "readRepository",
  variables: table,
  build: createRepository,
});

export const ledger = /* @__PURE__ */ component({
  name: "ledger",
  variables: table,
  build: ({ runtime, env }) =>
    createDynamoDbLedgerReader({
      client: dynamoDbDocumentClientOf(runtime),
      tableName: env.TABLE_NAME,
    }),
});

export const idempotency = /* @__PURE__ */ component({
  name: "idempotency",
  variables: table,
  build: ({ runtime, env }) =>
    createDynamoDbIdempotencyStore({
      client: dynamoDbClientOf(runtime),
      tableName: env.TABLE_NAME,
    }),
});

export const chargeQueue = /* @__PURE__ */ component({
  name: "chargeQueue",
  variables: chargeQueueVariables,
  build: ({ runtime, env }) =>
    createSqsChargeQueue({
      client: sqsClientOf(runtime),
      queueUrl: env.CHARGE_QUEUE_URL,
    }),
});

/** What a consumer of the charge queue needs to change a record's visibility. */
export const chargeQueueConsumer = /* @__PURE__ */ component({
  name: "chargeQueueConsumer",
  variables: chargeQueueVariables,
  build: ({ runtime, env }) => ({
    client: sqsClientOf(runtime),
    queueUrl: env.CHARGE_QUEUE_URL,
  }),
});

export const intakeQueue = /* @__PURE__ */ component({
  name: "intakeQueue",
  variables: intakeQueueVariables,
  build: ({ runtime, env }) =>
    createSqsIntakeQueue({
      client: sqsClientOf(runtime),
      queueUrl: env.INTAKE_QUEUE_URL,
    }),
});

export const intakeQueueConsumer = /* @__PURE__ */ component({
  name: "intakeQueueConsumer",
  variables: intakeQueueVariables,
  build: ({ runtime, env }) => ({
    client: sqsClientOf(runtime),
    queueUrl: env.INTAKE_QUEUE_URL,
  }),
});

export const events = /* @__PURE__ */ component({
  name: "events",
  variables: eventBusVariables,
  build: ({ runtime, env }) =>
    createEventBridgePublisher({
      client: eventBridgeClientOf(runtime),
      busName: env.EVENT_BUS_NAME,
    }),
});

/**
 * The gateway context of a gateway component: the secret's credentials, the variables' URLs. Each component builds
 * only the API family it calls, so a function's bundle holds only that family's schemas.
 */
async function gatewayContextOf({ runtime, env, tuning }: ComponentContext<typeof gatewayVariables>) {
  const config = {
    ...(await readGatewaySecret(runtime, env.GATEWAY_SECRET_ARN)),
    paymentBaseUrl: env.PAYMENT_BASE_URL,
    webhookAdminBaseUrl: env.WEBHOOK_ADMIN_BASE_URL,
    partnerBaseUrl: env.PARTNER_BASE_URL,
    rebillEndpoint: env.GATEWAY_REBILL_ENDPOINT,
    timeoutMs: tuning.gatewayTimeoutMs,
    readRetryMinDelayMs: tuning.gatewayReadRetryMinDelayMs,
  };
  return createGatewayContext(config, { now: () => runtime.clock.now(), fetchImpl: runtime.fetchImpl });
}

function partnerTokenStoreOf({ runtime, env }: ComponentContext<typeof partnerVariables>, cacheMs?: number) {
  return createSecretsManagerTokenStore({
    client: secretsManagerClientOf(runtime),
    secretId: env.PARTNER_TOKEN_SECRET_ARN,
    cacheMs,
  });
}

/** The payment API behind the core's port. */
export const gateway = /* @__PURE__ */ component({
  name: "gateway",
  variables: paymentGatewayVariables,
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => {
    const client = createPaymentClient(await gatewayContextOf(context));
    const declineCodes = { ...DEFAULT_DECLINE_CODES, ...context.env.GATEWAY_DECLINE_CODES };
    const productLink = context.env.GATEWAY_PRODUCT_LINK;
    return { payments: createPaymentGateway(client, { lang: "EN", declineCodes, productLink }) };
  },
});

/** The reconciliation API's transactions, in the core's words. */
export const gatewayTransactions = /* @__PURE__ */ component({
  name: "gatewayTransactions",
  variables: gatewayVariables,
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) =>
    createGatewayTransactions(createReconciliationClient(await gatewayContextOf(context))),
});

/** The reconciliation API's settlements and expected settlements, in the core's words. */
export const gatewaySettlements = /* @__PURE__ */ component({
  name: "gatewaySettlements",
  variables: gatewayVariables,
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) =>
    createGatewaySettlements(createReconciliationClient(await gatewayContextOf(context))),
});

/** The partner API's webhook subscriptions (the partner JWT kept in its secret). */
export const partnerWebhooks = /* @__PURE__ */ component({
  name: "partnerWebhooks",
  variables: partnerVariables,
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => {
    const gatewayContext = await gatewayContextOf(context);
    const tokens = createPartnerTokenProvider(gatewayContext, {
      store: partnerTokenStoreOf(context),
      refreshWindowMs: PARTNER_TOKEN_REFRESH_WINDOW_MS,
    });
    return createPartnerWebhooks(createPartnerClient(gatewayContext, tokens));
  },
});

/** The partner JWT's refresher: the only writer of the token secret. */
export const partnerTokenRefresher = /* @__PURE__ */ component({
  name: "partnerTokenRefresher",
  variables: partnerVariables,
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => {
    // No read cache: the refresher must see what other writers stored.
    const store = partnerTokenStoreOf(context, 0);
    const tokens = createPartnerTokenProvider(await gatewayContextOf(context), {
      store,
      refreshWindowMs: PARTNER_TOKEN_REFRESHER_WINDOW_MS,
    });
    return { tokens, store };
  },
});

/** Our public webhook URLs (status_url, recurring_noti_url, the partner receiver). */
export const webhookUrls = /* @__PURE__ */ component({
  name: "webhookUrls",
  variables: webhookBaseVariables,
  build: ({ env }) => {
    const base = env.PUBLIC_WEBHOOK_BASE_URL;
    return {
      statusUrl: joinUrl(base, "/status"),
      /** The merchant's page a customer returns to from the payment window when a checkout names none. */
      defaultReturnUrl: base,
      partnerEndpointUrl: joinUrl(base, "/partner"),
      /** The gateway's recurring_noti_url for one subscription: our recurring webhook, naming it and its secret. */
      recurringNotifyUrl: (({ subscription_id, notify_token }) =>
        `${joinUrl(base, "/recurring")}?${new URLSearchParams({
          subscription_id,
          ...(notify_token === undefined ? {} : { token: notify_token }),
        })}`) satisfies NotifyUrl,
    };
  },
});

export const policy = /* @__PURE__ */ component({
  name: "policy",
  variables: policyVariables,
  build: ({ env }) => ({
    ...DEFAULT_CHARGE_POLICY,
    ...env.CHARGE_POLICY,
    invoicing: {
      ...DEFAULT_CHARGE_POLICY.invoicing,
      ...(env.MERCHANT_NAME === undefined ? {} : { seller: { name: env.MERCHANT_NAME } }),
      ...env.CHARGE_POLICY?.invoicing,
    },
  }),
});

/** The gateway webhook secrets (read when needed, cached by the secret reader) and the header prefix. */
export const webhookSecrets = /* @__PURE__ */ component({
  name: "webhookSecrets",
  variables: webhookSecretVariables,
  build: ({ runtime, env }) => {
    return {
      secrets: () => readWebhookSecrets(runtime, env.WEBHOOK_SECRETS_ARN),
      headerPrefix: env.WEBHOOK_HEADER_PREFIX,
    };
  },
});

/** The digests of the merchant API keys (read when needed, cached by the secret reader). */
export const apiKeyDigests = /* @__PURE__ */ component({
  name: "apiKeyDigests",
  variables: authorizerEnvironment,
  build: ({ runtime, env }) => {
    const secretId = env.MERCHANT_API_KEY_HASH_SECRET_ARN;
    return () => readApiKeyDigests(runtime, secretId);
  },
});

/** Our pages' links (signed with the key in Secrets Manager) and the merchant's name they show. */
export const pages = /* @__PURE__ */ component({
  name: "pages",
  variables: pageVariablesSchema,
  maxAgeMs: SECRET_AGE_MS,
  build: async ({ runtime, env }) => {
    const links = createPageLinks({
      keys: await readPageLinkKeys(runtime, env.PAGE_LINK_SECRET_ARN),
      baseUrl: env.PUBLIC_PAGES_BASE_URL,
      now: () => runtime.clock.now(),
    });
    return { links, checkoutLinks: checkoutLinksOf(links), merchantName: env.MERCHANT_NAME };
  },
});

/**
 * Documents' files in S3 and the typefaces their PDFs are set in (read once, on the first PDF: 9 MB a container
 * keeps only if it renders).
 */
export const documentFiles = /* @__PURE__ */ component({
  name: "documentFiles",
  variables: documentVariablesSchema,
  build: ({ runtime, env }) => {
    let fonts: Promise<DocumentFonts> | undefined;
    const read = (file: string) => readFile(join(env.DOCUMENT_FONT_DIR, file));
    return {
      files: createS3DocumentFiles({ client: s3ClientOf(runtime), bucket: env.DOCUMENT_BUCKET_NAME }),
      fonts: () => {
        fonts ??= Promise.all([read(DOCUMENT_FONT_FILES.regular), read(DOCUMENT_FONT_FILES.bold)]).then(
          ([regular, bold]) => ({ regular, bold }),
        );
        return fonts;
      },
    };
  },
});

/** A mail's portal link holds a week: a customer reads mail later than a page. */
const MAIL_PORTAL_LINK_MS = 7 * 24 * 3_600_000;

/**
 * The customer mails: which the merchant sends (none without MAIL_SETTINGS), and SES sending them with the portal
 * links signed like the pages' own.
 */
export const mail = /* @__PURE__ */ component({
  name: "mail",
  variables: mailVariablesSchema,
  maxAgeMs: SECRET_AGE_MS,
  build: async ({ runtime, env }): Promise<{ readonly mailPolicy: MailPolicy; readonly mailer: Mailer }> => {
    const settings = env.MAIL_SETTINGS;
    const mailPolicy = {
      templates: new Set(settings === undefined ? [] : (settings.templates ?? DEFAULT_MAIL_TEMPLATES)),
      renewalNoticeDays: settings?.renewal_notice_days ?? DEFAULT_RENEWAL_NOTICE_DAYS,
    };
    if (settings === undefined) return { mailPolicy, mailer: NO_MAILER };
    const links = createPageLinks({
      keys: await readPageLinkKeys(runtime, env.PAGE_LINK_SECRET_ARN),
      baseUrl: env.PUBLIC_PAGES_BASE_URL,
      now: () => runtime.clock.now(),
    });
    const mailer = createSesMailer({
      client: sesClientOf(runtime),
      from: settings.from,
      replyTo: settings.reply_to,
      configurationSet: settings.configuration_set,
      sender: {
        merchantName: env.MERCHANT_NAME ?? settings.from,
        supportAddress: settings.support_email ?? settings.reply_to,
      },
      links: {
        portalUrlOf: (subscription_id, lang) =>
          portalLinkOf(links, { subscription_id }, { ttlMs: MAIL_PORTAL_LINK_MS, lang }).url,
        invoiceUrlOf: (number, lang) =>
          documentLinksOf(links, { kind: "invoice", number }, { lang }).hosted_url,
      },
    });
    return { mailPolicy, mailer };
  },
});

/** Without MAIL_SETTINGS no template is on, so nothing reaches the mailer. */
const NO_MAILER: Mailer = {
  send: () => Promise.reject(new Error("no mail is sent without MAIL_SETTINGS")),
};

/** The indexes the date-driven mails are found by. */
export const reminderIndex = /* @__PURE__ */ component({
  name: "reminderIndex",
  variables: table,
  build: ({ runtime, env }) =>
    createDynamoDbReminderIndex({ client: dynamoDbDocumentClientOf(runtime), tableName: env.TABLE_NAME }),
});

/** The actions the customer portal offers (all unless the merchant chose). */
export const portal = /* @__PURE__ */ component({
  name: "portal",
  variables: portalVariablesSchema,
  build: ({ env }): ReadonlySet<PortalAction> => new Set(env.PORTAL_ACTIONS ?? PORTAL_ACTIONS),
});

function priceStoreOf({ runtime, env }: ComponentContext<typeof table>) {
  return createDynamoDbPriceStore({ client: dynamoDbDocumentClientOf(runtime), tableName: env.TABLE_NAME });
}

/** The catalog's prices in the billing table, read and written. */
export const priceStore = /* @__PURE__ */ component({
  name: "priceStore",
  variables: table,
  build: priceStoreOf,
});

/** The same code as `priceStore`: the read-only component differs in its grants. */
export const priceStoreReader = /* @__PURE__ */ component({
  name: "priceStoreReader",
  variables: table,
  build: priceStoreOf,
});

function couponStoreOf({ runtime, env }: ComponentContext<typeof table>) {
  return createDynamoDbCouponStore({ client: dynamoDbDocumentClientOf(runtime), tableName: env.TABLE_NAME });
}

/** The merchant's coupons in the billing table, read and redeemed. */
export const couponStore = /* @__PURE__ */ component({
  name: "couponStore",
  variables: table,
  build: couponStoreOf,
});

/** The same code as `couponStore`: the read-only component differs in its grants. */
export const couponStoreReader = /* @__PURE__ */ component({
  name: "couponStoreReader",
  variables: table,
  build: couponStoreOf,
});

function webhookStoreOf({ runtime, env }: ComponentContext<typeof table>) {
  return createDynamoDbWebhookStore({ client: dynamoDbDocumentClientOf(runtime), tableName: env.TABLE_NAME });
}

/** Our webhook endpoints and their deliveries in the billing table, read and written. */
export const webhookStore = /* @__PURE__ */ component({
  name: "webhookStore",
  variables: table,
  build: webhookStoreOf,
});

/** The same code as `webhookStore`: the read-only component differs in its grants. */
export const webhookStoreReader = /* @__PURE__ */ component({
  name: "webhookStoreReader",
  variables: table,
  build: webhookStoreOf,
});

/** The webhook delivery queue, sent to. */
export const webhookQueue = /* @__PURE__ */ component({
  name: "webhookQueue",
  variables: webhookQueueVariables,
  build: ({ runtime, env }) =>
    createSqsWebhookQueue({ client: sqsClientOf(runtime), queueUrl: env.WEBHOOK_QUEUE_URL }),
});

/** What a consumer of the webhook queue needs to put a delivery back until its next attempt. */
export const webhookQueueConsumer = /* @__PURE__ */ component({
  name: "webhookQueueConsumer",
  variables: webhookQueueVariables,
  build: ({ runtime, env }) => ({ client: sqsClientOf(runtime), queueUrl: env.WEBHOOK_QUEUE_URL }),
});

/**
 * Where webhooks go out: https to public addresses only, unless local mode says "local" (http, loopback) — which a
 * Lambda function never may.
 */
export const webhookTransport = /* @__PURE__ */ component({
  name: "webhookTransport",
  variables: webhookUrlVariables,
  build: ({ env, tuning }) => {
    const policy = env.WEBHOOK_URL_POLICY ?? "public";
    if (policy === "local" && env.AWS_LAMBDA_FUNCTION_NAME !== undefined)
      throw new EnvironmentError(["WEBHOOK_URL_POLICY must not be local in a Lambda function"]);
    return createHttpsWebhookTransport({
      rules: WEBHOOK_URL_RULES[policy],
      timeoutMs: tuning.webhookTimeoutMs,
    });
  },
});
