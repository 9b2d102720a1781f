import type * as z from "zod";
import { createDynamoDbBillingRepository } from "../adapters/dynamodb-billing-repository";
import { createDynamoDbIdempotencyStore } from "../adapters/dynamodb-idempotency-store";
import { createDynamoDbLedgerReader } from "../adapters/dynamodb-ledger-reader";
import { createEventBridgePublisher } from "../adapters/eventbridge-publisher";
import { createPartnerWebhooks } from "../adapters/partner-webhooks";
import { createPaymentGateway } from "../adapters/payment-gateway";
import { createRandomIds } from "../adapters/random-ids";
import { createSecretsManagerTokenStore } from "../adapters/secrets-manager-token-store";
import { createSqsChargeQueue } from "../adapters/sqs-charge-queue";
import { createSqsIntakeQueue } from "../adapters/sqs-intake-queue";
import { DEFAULT_CHARGE_POLICY } from "../core/charge-policy";
import { PARTNER_TOKEN_REFRESHER_WINDOW_MS } from "../core/partner-token-refresh";
import { joinUrl } from "../gateway/context";
import { createGatewayClient } from "../gateway/gateway-client";
import { createPartnerTokenProvider } from "../gateway/partner-token";
import { loadEnvironment } from "../runtime/environment";
import { COMPONENT_VARIABLES, type ComponentName } from "./components";
import type { Runtime } from "./runtime";
import { readApiKeyDigests, readGatewaySecret, readWebhookSecrets, SECRET_MAX_AGE_SECONDS } from "./secrets";

/** The variables a composition reads: a Lambda's process.env, or the ones local mode and the ops CLI hand over. */
export type Variables = Readonly<Record<string, string | undefined>>;

/** What tests and local mode may tune beyond the variables: the gateway client's patience. */
export interface CompositionTuning {
  readonly gatewayTimeoutMs?: number;
  readonly gatewayReadRetryMinDelayMs?: number;
}

/** Builds once and keeps the result; a failed build (a missing variable) is forgotten, so the next call tries again. */
function once<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/**
 * Builds asynchronously and reuses the result for maxAgeMs; a failed build is forgotten (a Secrets Manager hiccup
 * must not poison a container). Used for what rests on a secret, so a rotation shows within the age.
 */
function refreshed<T>(build: () => Promise<T>, maxAgeMs: number): () => Promise<T> {
  let cached: { readonly value: Promise<T>; readonly builtAt: number } | undefined;
  return () => {
    if (cached === undefined || Date.now() - cached.builtAt >= maxAgeMs) {
      const entry = { value: build(), builtAt: Date.now() };
      cached = entry;
      entry.value.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.value;
  };
}

/**
 * The composition root: every real adapter of the system, each built from its variables the first time a service
 * set asks for it, then reused. A Lambda container composes once over process.env (functions/composition/
 * handler-entry.ts); local mode, the tests and the ops CLI compose over the variables they hold, so several
 * compositions can live in one process. A component whose variable is missing throws EnvironmentError naming it.
 */
export function compose(runtime: Runtime, variables: Variables, tuning: CompositionTuning = {}) {
  const variablesOf = <N extends ComponentName>(name: N) =>
    loadEnvironment(COMPONENT_VARIABLES[name], variables);
  const { clock } = runtime;
  const secretAgeMs = SECRET_MAX_AGE_SECONDS * 1000;

  const gatewayConfig = async (
    name: "gateway" | "gatewayTransactions" | "partnerWebhooks" | "partnerTokenRefresher",
  ) => {
    const env = variablesOf(name);
    return {
      ...(await readGatewaySecret(runtime, env.GATEWAY_SECRET_ARN)),
      paymentBaseUrl: env.PAYMENT_BASE_URL,
      webhookAdminBaseUrl: env.WEBHOOK_ADMIN_BASE_URL,
      partnerBaseUrl: env.PARTNER_BASE_URL,
      rebillEndpoint: env.GATEWAY_REBILL_ENDPOINT,
      timeoutMs: tuning.gatewayTimeoutMs,
      readRetryMinDelayMs: tuning.gatewayReadRetryMinDelayMs,
    };
  };
  const gatewayOptions = { now: () => clock.now(), fetchImpl: runtime.fetchImpl };
  const partnerTokenStore = (name: "partnerWebhooks" | "partnerTokenRefresher", cacheMs?: number) =>
    createSecretsManagerTokenStore({
      client: runtime.secretsManager,
      secretId: variablesOf(name).PARTNER_TOKEN_SECRET_ARN,
      cacheMs,
    });
  // One repository class serves both: the read-only component differs in its grants, not its code.
  const repositoryOf = (name: "repository" | "readRepository") =>
    once(() =>
      createDynamoDbBillingRepository({
        client: runtime.dynamo,
        tableName: variablesOf(name).TABLE_NAME,
        clock,
      }),
    );
  const webhookBaseUrl = () => variablesOf("webhookUrls").PUBLIC_WEBHOOK_BASE_URL;

  const components = {
    clock,
    ids: once(createRandomIds),
    repository: repositoryOf("repository"),
    readRepository: repositoryOf("readRepository"),
    ledger: once(() =>
      createDynamoDbLedgerReader({ client: runtime.dynamo, tableName: variablesOf("ledger").TABLE_NAME }),
    ),
    idempotency: once(() =>
      createDynamoDbIdempotencyStore({
        client: runtime.dynamoClient,
        tableName: variablesOf("idempotency").TABLE_NAME,
      }),
    ),
    chargeQueue: once(() =>
      createSqsChargeQueue({ client: runtime.sqs, queueUrl: variablesOf("chargeQueue").CHARGE_QUEUE_URL }),
    ),
    /** What a consumer of the charge queue needs to change a record's visibility. */
    chargeQueueConsumer: once(() => ({
      client: runtime.sqs,
      queueUrl: variablesOf("chargeQueueConsumer").CHARGE_QUEUE_URL,
    })),
    intakeQueue: once(() =>
      createSqsIntakeQueue({ client: runtime.sqs, queueUrl: variablesOf("intakeQueue").INTAKE_QUEUE_URL }),
    ),
    intakeQueueConsumer: once(() => ({
      client: runtime.sqs,
      queueUrl: variablesOf("intakeQueueConsumer").INTAKE_QUEUE_URL,
    })),
    events: once(async () =>
      createEventBridgePublisher({
        client: await runtime.eventBridge(),
        busName: variablesOf("events").EVENT_BUS_NAME,
      }),
    ),
    /** The payment API behind the core's port, and the raw client (tests, the ops CLI). */
    gateway: refreshed(async () => {
      const client = createGatewayClient(await gatewayConfig("gateway"), gatewayOptions);
      return { client, payments: createPaymentGateway(client.payments, { lang: "EN" }) };
    }, secretAgeMs),
    gatewayTransactions: refreshed(async () => {
      const client = createGatewayClient(await gatewayConfig("gatewayTransactions"), gatewayOptions);
      return client.reconciliation;
    }, secretAgeMs),
    partnerWebhooks: refreshed(async () => {
      const client = createGatewayClient(await gatewayConfig("partnerWebhooks"), {
        ...gatewayOptions,
        partnerTokenStore: partnerTokenStore("partnerWebhooks"),
      });
      return createPartnerWebhooks(client.partner);
    }, secretAgeMs),
    partnerTokenRefresher: refreshed(async () => {
      const client = createGatewayClient(await gatewayConfig("partnerTokenRefresher"), gatewayOptions);
      // No read cache: the refresher must see what other writers stored.
      const store = partnerTokenStore("partnerTokenRefresher", 0);
      const tokens = createPartnerTokenProvider(client.context, {
        store,
        refreshWindowMs: PARTNER_TOKEN_REFRESHER_WINDOW_MS,
      });
      return { tokens, store };
    }, secretAgeMs),
    webhookUrls: once(() => {
      const base = webhookBaseUrl();
      return {
        statusUrl: joinUrl(base, "/status"),
        /** The merchant's page a customer returns to from the payment window when a checkout names none. */
        defaultReturnUrl: base,
        partnerEndpointUrl: joinUrl(base, "/partner"),
        /** The gateway's recurring_noti_url for one subscription: our recurring webhook, naming the subscription. */
        recurringNotifyUrl: (subscriptionId: string) =>
          `${joinUrl(base, "/recurring")}?subscription_id=${encodeURIComponent(subscriptionId)}`,
      };
    }),
    policy: once(() => ({ ...DEFAULT_CHARGE_POLICY, ...variablesOf("policy").CHARGE_POLICY })),
    webhookSecrets: once(() => {
      const env = variablesOf("webhookSecrets");
      return {
        secrets: () => readWebhookSecrets(runtime, env.WEBHOOK_SECRETS_ARN),
        headerPrefix: env.WEBHOOK_HEADER_PREFIX,
      };
    }),
    apiKeyDigests: once(() => {
      const secretId = variablesOf("apiKeyDigests").MERCHANT_API_KEY_HASH_SECRET_ARN;
      return () => readApiKeyDigests(runtime, secretId);
    }),
  } satisfies Record<ComponentName, unknown>;
  // A set's variables are checked on its first use in this composition, not on every invocation.
  const checked = new WeakSet<z.ZodObject>();
  return {
    ...components,
    /** Checks a service set's variables at once, naming every missing or invalid one (EnvironmentError). */
    check(schema: z.ZodObject): void {
      if (checked.has(schema)) return;
      loadEnvironment(schema, variables);
      checked.add(schema);
    },
  };
}

export type Composition = ReturnType<typeof compose>;
