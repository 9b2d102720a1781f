import type * as z from "zod";
import { createDynamoDbBillingRepository } from "../adapters/dynamodb-billing-repository";
import { dynamoDbClientOf, dynamoDbDocumentClientOf } from "../adapters/dynamodb-client";
import { createDynamoDbIdempotencyStore } from "../adapters/dynamodb-idempotency-store";
import { createDynamoDbLedgerReader } from "../adapters/dynamodb-ledger-reader";
import { createEventBridgePublisher, eventBridgeClientOf } from "../adapters/eventbridge-publisher";
import { createPartnerWebhooks } from "../adapters/partner-webhooks";
import { createPaymentGateway } from "../adapters/payment-gateway";
import { createRandomIds } from "../adapters/random-ids";
import { secretsManagerClientOf } from "../adapters/secrets-manager-client";
import { createSecretsManagerTokenStore } from "../adapters/secrets-manager-token-store";
import { createSqsChargeQueue } from "../adapters/sqs-charge-queue";
import { sqsClientOf } from "../adapters/sqs-client";
import { createSqsIntakeQueue } from "../adapters/sqs-intake-queue";
import { DEFAULT_CHARGE_POLICY } from "../core/charge-policy";
import {
  PARTNER_TOKEN_REFRESH_WINDOW_MS,
  PARTNER_TOKEN_REFRESHER_WINDOW_MS,
} from "../core/partner-token-refresh";
import type { NotifyUrl } from "../core/ports";
import { joinUrl } from "../gateway/context";
import { createGatewayClient } from "../gateway/gateway-client";
import { createPartnerTokenProvider, type PartnerTokenStore } from "../gateway/partner-token";
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

/** What a component is built from: the process's runtime, its variables (checked), the tuning. */
export interface ComponentContext {
  readonly runtime: Runtime;
  readonly tuning: CompositionTuning;
  variables<N extends ComponentName>(name: N): z.infer<(typeof COMPONENT_VARIABLES)[N]>;
}

/**
 * One adapter of the system and how it is built. Built once per composition; one with maxAgeMs (what rests on a
 * secret, so a rotation shows within that age) is built again once its build is that old. A failed build is
 * forgotten either way (a missing variable, a Secrets Manager hiccup must not poison a container).
 */
export interface Component<N extends ComponentName, T> {
  readonly name: N;
  readonly build: (context: ComponentContext) => T;
  readonly maxAgeMs?: number;
}

// The components are plain objects, one top-level constant each, and a service set names the ones it uses: a
// function's bundle then holds only its own components' adapters and SDK clients (esbuild drops the rest).

const SECRET_AGE_MS = SECRET_MAX_AGE_SECONDS * 1000;

export const clock = { name: "clock", build: ({ runtime }) => runtime.clock } satisfies Component<
  "clock",
  unknown
>;

export const ids = { name: "ids", build: () => createRandomIds() } satisfies Component<"ids", unknown>;

function repositoryOf(context: ComponentContext, name: "repository" | "readRepository") {
  return createDynamoDbBillingRepository({
    client: dynamoDbDocumentClientOf(context.runtime),
    tableName: context.variables(name).TABLE_NAME,
    clock: context.runtime.clock,
  });
}

/** The billing table, read and written. */
export const repository = {
  name: "repository",
  build: (context) => repositoryOf(context, "repository"),
} satisfies Component<"repository", unknown>;

/** The same code as `repository`: the read-only component differs in its grants. */
export const readRepository = {
  name: "readRepository",
  build: (context) => repositoryOf(context, "readRepository"),
} satisfies Component<"readRepository", unknown>;

export const ledger = {
  name: "ledger",
  build: ({ runtime, variables }) =>
    createDynamoDbLedgerReader({
      client: dynamoDbDocumentClientOf(runtime),
      tableName: variables("ledger").TABLE_NAME,
    }),
} satisfies Component<"ledger", unknown>;

export const idempotency = {
  name: "idempotency",
  build: ({ runtime, variables }) =>
    createDynamoDbIdempotencyStore({
      client: dynamoDbClientOf(runtime),
      tableName: variables("idempotency").TABLE_NAME,
    }),
} satisfies Component<"idempotency", unknown>;

export const chargeQueue = {
  name: "chargeQueue",
  build: ({ runtime, variables }) =>
    createSqsChargeQueue({
      client: sqsClientOf(runtime),
      queueUrl: variables("chargeQueue").CHARGE_QUEUE_URL,
    }),
} satisfies Component<"chargeQueue", unknown>;

/** What a consumer of the charge queue needs to change a record's visibility. */
export const chargeQueueConsumer = {
  name: "chargeQueueConsumer",
  build: ({ runtime, variables }) => ({
    client: sqsClientOf(runtime),
    queueUrl: variables("chargeQueueConsumer").CHARGE_QUEUE_URL,
  }),
} satisfies Component<"chargeQueueConsumer", unknown>;

export const intakeQueue = {
  name: "intakeQueue",
  build: ({ runtime, variables }) =>
    createSqsIntakeQueue({
      client: sqsClientOf(runtime),
      queueUrl: variables("intakeQueue").INTAKE_QUEUE_URL,
    }),
} satisfies Component<"intakeQueue", unknown>;

export const intakeQueueConsumer = {
  name: "intakeQueueConsumer",
  build: ({ runtime, variables }) => ({
    client: sqsClientOf(runtime),
    queueUrl: variables("intakeQueueConsumer").INTAKE_QUEUE_URL,
  }),
} satisfies Component<"intakeQueueConsumer", unknown>;

export const events = {
  name: "events",
  build: ({ runtime, variables }) =>
    createEventBridgePublisher({
      client: eventBridgeClientOf(runtime),
      busName: variables("events").EVENT_BUS_NAME,
    }),
} satisfies Component<"events", unknown>;

type GatewayComponentName = "gateway" | "gatewayTransactions" | "partnerWebhooks" | "partnerTokenRefresher";

/** The gateway client of a gateway component: the secret's credentials, the variables' URLs. */
async function gatewayClientOf(
  { runtime, variables, tuning }: ComponentContext,
  name: GatewayComponentName,
  partnerTokenStore?: PartnerTokenStore,
) {
  const env = variables(name);
  const config = {
    ...(await readGatewaySecret(runtime, env.GATEWAY_SECRET_ARN)),
    paymentBaseUrl: env.PAYMENT_BASE_URL,
    webhookAdminBaseUrl: env.WEBHOOK_ADMIN_BASE_URL,
    partnerBaseUrl: env.PARTNER_BASE_URL,
    rebillEndpoint: env.GATEWAY_REBILL_ENDPOINT,
    timeoutMs: tuning.gatewayTimeoutMs,
    readRetryMinDelayMs: tuning.gatewayReadRetryMinDelayMs,
  };
  return createGatewayClient(config, {
    now: () => runtime.clock.now(),
    fetchImpl: runtime.fetchImpl,
    partnerTokenStore,
    partnerTokenRefreshWindowMs: PARTNER_TOKEN_REFRESH_WINDOW_MS,
  });
}

function partnerTokenStoreOf(
  { runtime, variables }: ComponentContext,
  name: "partnerWebhooks" | "partnerTokenRefresher",
  cacheMs?: number,
) {
  return createSecretsManagerTokenStore({
    client: secretsManagerClientOf(runtime),
    secretId: variables(name).PARTNER_TOKEN_SECRET_ARN,
    cacheMs,
  });
}

/** The payment API behind the core's port, and the raw client (tests, the ops CLI). */
export const gateway = {
  name: "gateway",
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => {
    const client = await gatewayClientOf(context, "gateway");
    return { client, payments: createPaymentGateway(client.payments, { lang: "EN" }) };
  },
} satisfies Component<"gateway", unknown>;

/** The reconciliation API. */
export const gatewayTransactions = {
  name: "gatewayTransactions",
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => (await gatewayClientOf(context, "gatewayTransactions")).reconciliation,
} satisfies Component<"gatewayTransactions", unknown>;

/** The partner API's webhook subscriptions (the partner JWT kept in its secret). */
export const partnerWebhooks = {
  name: "partnerWebhooks",
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => {
    const store = partnerTokenStoreOf(context, "partnerWebhooks");
    return createPartnerWebhooks((await gatewayClientOf(context, "partnerWebhooks", store)).partner);
  },
} satisfies Component<"partnerWebhooks", unknown>;

/** The partner JWT's refresher: the only writer of the token secret. */
export const partnerTokenRefresher = {
  name: "partnerTokenRefresher",
  maxAgeMs: SECRET_AGE_MS,
  build: async (context) => {
    const client = await gatewayClientOf(context, "partnerTokenRefresher");
    // No read cache: the refresher must see what other writers stored.
    const store = partnerTokenStoreOf(context, "partnerTokenRefresher", 0);
    const tokens = createPartnerTokenProvider(client.context, {
      store,
      refreshWindowMs: PARTNER_TOKEN_REFRESHER_WINDOW_MS,
    });
    return { tokens, store };
  },
} satisfies Component<"partnerTokenRefresher", unknown>;

/** Our public webhook URLs (status_url, recurring_noti_url, the partner receiver). */
export const webhookUrls = {
  name: "webhookUrls",
  build: ({ variables }) => {
    const base = variables("webhookUrls").PUBLIC_WEBHOOK_BASE_URL;
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
} satisfies Component<"webhookUrls", unknown>;

export const policy = {
  name: "policy",
  build: ({ variables }) => ({ ...DEFAULT_CHARGE_POLICY, ...variables("policy").CHARGE_POLICY }),
} satisfies Component<"policy", unknown>;

/** The gateway webhook secrets (read when needed, cached by the secret reader) and the header prefix. */
export const webhookSecrets = {
  name: "webhookSecrets",
  build: ({ runtime, variables }) => {
    const env = variables("webhookSecrets");
    return {
      secrets: () => readWebhookSecrets(runtime, env.WEBHOOK_SECRETS_ARN),
      headerPrefix: env.WEBHOOK_HEADER_PREFIX,
    };
  },
} satisfies Component<"webhookSecrets", unknown>;

/** The digests of the merchant API keys (read when needed, cached by the secret reader). */
export const apiKeyDigests = {
  name: "apiKeyDigests",
  build: ({ runtime, variables }) => {
    const secretId = variables("apiKeyDigests").MERCHANT_API_KEY_HASH_SECRET_ARN;
    return () => readApiKeyDigests(runtime, secretId);
  },
} satisfies Component<"apiKeyDigests", unknown>;

/** Builds once and keeps the result; a failed build is forgotten, so the next call tries again. */
function once<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** Builds and reuses the result for maxAgeMs; a failed (rejected) build is forgotten. */
function refreshed<T>(build: () => T, maxAgeMs: number): () => T {
  let cached: { readonly value: T; readonly builtAt: number } | undefined;
  return () => {
    if (cached === undefined || Date.now() - cached.builtAt >= maxAgeMs) {
      const entry = { value: build(), builtAt: Date.now() };
      cached = entry;
      Promise.resolve(entry.value).catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.value;
  };
}

/**
 * The composition root: each component built from its variables the first time a service set asks for it, then
 * reused. A Lambda container composes once over process.env (functions/composition/lambda-entry.ts); local mode,
 * the tests and the ops CLI compose over the variables they hold, so several compositions can live in one process.
 * A component whose variable is missing throws EnvironmentError naming it.
 */
export function compose(runtime: Runtime, variables: Variables, tuning: CompositionTuning = {}) {
  const context: ComponentContext = {
    runtime,
    tuning,
    variables: (name) => loadEnvironment(COMPONENT_VARIABLES[name], variables),
  };
  const built = new Map<Component<ComponentName, unknown>, () => unknown>();
  // A set's variables are checked on its first use in this composition, not on every invocation.
  const checked = new WeakSet<z.ZodObject>();
  return {
    /** The component, built in this composition. */
    get<T>(component: Component<ComponentName, T>): T {
      let accessor = built.get(component);
      if (accessor === undefined) {
        const build = () => component.build(context);
        accessor = component.maxAgeMs === undefined ? once(build) : refreshed(build, component.maxAgeMs);
        built.set(component, accessor);
      }
      return accessor() as T;
    },
    /** Checks a service set's variables at once, naming every missing or invalid one (EnvironmentError). */
    check(schema: z.ZodObject): void {
      if (checked.has(schema)) return;
      loadEnvironment(schema, variables);
      checked.add(schema);
    },
  };
}

export type Composition = ReturnType<typeof compose>;
