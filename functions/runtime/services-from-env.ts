import { TransformParameterError } from "@aws-lambda-powertools/parameters";
import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { z } from "zod";
import { createDynamoDbBillingRepository } from "../adapters/dynamodb-billing-repository";
import { createDynamoDbDocumentClient } from "../adapters/dynamodb-client";
import { createEventBridgePublisher } from "../adapters/eventbridge-publisher";
import { createSecretsManagerTokenStore } from "../adapters/secrets-manager-token-store";
import { createSqsChargeQueue } from "../adapters/sqs-charge-queue";
import { createSqsClient } from "../adapters/sqs-client";
import { type BillingServices, createBillingServices } from "../billing-services";
import type { ChargeRunDeps } from "../core/charge-run";
import {
  PARTNER_TOKEN_REFRESHER_WINDOW_MS,
  type PartnerTokenRefreshDeps,
} from "../core/partner-token-refresh";
import type { Clock } from "../core/ports";
import { gatewayConfigSchema } from "../gateway/config";
import { basicAuthorization, createGatewayContext } from "../gateway/context";
import { fieldOf } from "../gateway/errors";
import { createPartnerTokenProvider } from "../gateway/partner-token";
import { withAliases } from "../gateway/schemas/primitives";
import type { FetchLike } from "../gateway/transport";
import {
  billingEnvironment,
  chargeRunEnvironment,
  type gatewayEnvironment,
  loadEnvironment,
  partnerTokenEnvironment,
} from "./environment";
import { tracer } from "./observability";
import { registerSecretValues } from "./redaction";

/** How long a fetched gateway secret (and the services built on it) is reused: a rotation shows within this. */
export const GATEWAY_SECRET_MAX_AGE_SECONDS = 300;

/**
 * The merchant's gateway credentials, kept in one JSON secret; the URLs come from the environment. The AES key is
 * `aesKey` (64 hex characters or a 32-character key); `aesKeyHex`, its earlier name, is read too.
 */
export const gatewaySecretSchema = withAliases(
  { aesKeyHex: "aesKey" },
  gatewayConfigSchema.pick({
    mid: true,
    apiKey: true,
    aesKey: true,
    aesIv: true,
    partnerApiKey: true,
    partnerMerchantId: true,
  }),
);

/** What the process needs besides its environment: SDK clients, the secret reader, the clock. */
export interface Runtime {
  readonly dynamo: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly eventBridge: EventBridgeClient;
  readonly secretsManager: SecretsManagerClient;
  readonly secrets: SecretsProvider;
  readonly clock: Clock;
  readonly fetchImpl?: FetchLike;
}

/**
 * SDK clients by the SDK's own resolution (AWS_REGION, credentials, AWS_ENDPOINT_URL_DYNAMODB / _SQS /
 * _EVENTBRIDGE / _SECRETS_MANAGER in local mode), traced when X-Ray is on, and the system clock. Local mode may
 * replace a field (its shared clock) before handing the runtime to a build* function.
 */
export function createRuntime(): Runtime {
  const secretsManager = tracer.captureAWSv3Client(new SecretsManagerClient({}));
  return {
    dynamo: tracer.captureAWSv3Client(createDynamoDbDocumentClient()),
    sqs: tracer.captureAWSv3Client(createSqsClient()),
    eventBridge: tracer.captureAWSv3Client(new EventBridgeClient({})),
    secretsManager,
    secrets: new SecretsProvider({ awsSdkV3Client: secretsManager }),
    clock: { now: () => new Date() },
  };
}

/** Every service of the billing core, plus what the SQS worker needs to change a message's visibility. */
export type RuntimeServices = BillingServices & { readonly sqs: SQSClient; readonly chargeQueueUrl: string };

/**
 * Reads and checks the gateway secret (cached by Powertools for GATEWAY_SECRET_MAX_AGE_SECONDS), and registers its
 * credentials with the redactor so that no log line can carry them.
 */
export async function readGatewaySecret(runtime: Runtime, secretArn: string) {
  let value: unknown;
  try {
    value = await runtime.secrets.get(secretArn, {
      transform: "json",
      maxAge: GATEWAY_SECRET_MAX_AGE_SECONDS,
    });
  } catch (error) {
    // The transform error quotes the text it could not parse: never let a secret reach a log that way.
    if (error instanceof TransformParameterError) throw new Error(`gateway secret ${secretArn} is not JSON`);
    throw error;
  }
  const parsed = gatewaySecretSchema.safeParse(value, { reportInput: false });
  if (parsed.success) {
    const { apiKey, aesKey, partnerApiKey } = parsed.data;
    registerSecretValues([apiKey, basicAuthorization(apiKey).slice("Basic ".length), aesKey, partnerApiKey]);
    return parsed.data;
  }
  const fields = parsed.error.issues.map((issue) => `${fieldOf(issue)} ${issue.message}`);
  throw new Error(`gateway secret ${secretArn} is invalid: ${fields.join("; ")}`);
}

/** The gateway's configuration: the merchant's secret and the URLs of the environment. */
export async function gatewayConfig(env: z.output<typeof gatewayEnvironment>, runtime: Runtime) {
  return {
    ...(await readGatewaySecret(runtime, env.GATEWAY_SECRET_ARN)),
    paymentBaseUrl: env.PAYMENT_BASE_URL,
    webhookAdminBaseUrl: env.WEBHOOK_ADMIN_BASE_URL,
    partnerBaseUrl: env.PARTNER_BASE_URL,
    rebillEndpoint: env.GATEWAY_REBILL_ENDPOINT,
  };
}

/** The charge run's services: the due index and the queue only (the function holds no gateway secret). */
export function buildChargeRunServices(
  env: z.output<typeof chargeRunEnvironment>,
  runtime: Runtime,
): ChargeRunDeps {
  return {
    repository: createDynamoDbBillingRepository({ client: runtime.dynamo, tableName: env.TABLE_NAME }),
    queue: createSqsChargeQueue({ client: runtime.sqs, queueUrl: env.CHARGE_QUEUE_URL }),
    clock: runtime.clock,
  };
}

/** The whole billing core from the environment: the composition root with real adapters. */
export async function buildBillingServices(
  env: z.output<typeof billingEnvironment>,
  runtime: Runtime,
): Promise<RuntimeServices> {
  const partnerTokenArn = env.PARTNER_TOKEN_SECRET_ARN;
  const services = createBillingServices({
    dynamo: runtime.dynamo,
    tableName: env.TABLE_NAME,
    sqs: runtime.sqs,
    chargeQueueUrl: env.CHARGE_QUEUE_URL,
    events: createEventBridgePublisher({ client: runtime.eventBridge, busName: env.EVENT_BUS_NAME }),
    gateway: await gatewayConfig(env, runtime),
    clock: runtime.clock,
    webhookBaseUrl: env.PUBLIC_WEBHOOK_BASE_URL,
    policy: env.CHARGE_POLICY,
    partnerTokenStore:
      partnerTokenArn === undefined
        ? undefined
        : createSecretsManagerTokenStore({ client: runtime.secretsManager, secretId: partnerTokenArn }),
    fetchImpl: runtime.fetchImpl,
  });
  return { ...services, sqs: runtime.sqs, chargeQueueUrl: env.CHARGE_QUEUE_URL };
}

/** The refresher's services: a provider that replaces the stored token within the refresher's window. */
export async function buildPartnerTokenServices(
  env: z.output<typeof partnerTokenEnvironment>,
  runtime: Runtime,
): Promise<PartnerTokenRefreshDeps> {
  const context = createGatewayContext(await gatewayConfig(env, runtime), {
    now: () => runtime.clock.now(),
    fetchImpl: runtime.fetchImpl,
  });
  // No read cache: the refresher must see what other writers stored.
  const store = createSecretsManagerTokenStore({
    client: runtime.secretsManager,
    secretId: env.PARTNER_TOKEN_SECRET_ARN,
    cacheMs: 0,
  });
  const tokens = createPartnerTokenProvider(context, {
    store,
    refreshWindowMs: PARTNER_TOKEN_REFRESHER_WINDOW_MS,
  });
  return { tokens, store, clock: runtime.clock };
}

/** Every memo, so that resetServices forgets them all (handlers' services are built in other modules too). */
const memos = new Set<{ reset(): void }>();

/**
 * Builds once per container and reuses the result for maxAgeMs (forever without). A failed build is forgotten, so
 * the next invocation tries again (a Secrets Manager hiccup must not poison the container).
 */
export function memoised<T>(build: () => T | Promise<T>, maxAgeMs = Number.POSITIVE_INFINITY) {
  let cached: { readonly value: Promise<T>; readonly builtAt: number } | undefined;
  const memo = {
    get(): Promise<T> {
      if (cached === undefined || Date.now() - cached.builtAt >= maxAgeMs) {
        // A synchronous throw (a missing variable) becomes a rejection like any other failure.
        const value = (async () => build())();
        const entry = { value, builtAt: Date.now() };
        cached = entry;
        value.catch(() => {
          if (cached === entry) cached = undefined;
        });
      }
      return cached.value;
    },
    reset() {
      cached = undefined;
    },
  };
  memos.add(memo);
  return memo;
}

let runtime: Runtime | undefined;
let runtimeOverrides: Partial<Runtime> = {};
/** The process's SDK clients and clock, created on first use. */
export const defaultRuntime = () => {
  runtime ??= { ...createRuntime(), ...runtimeOverrides };
  return runtime;
};

/**
 * Local mode runs the handlers in one process on its shared clock: every runtime built from now on (and after each
 * resetServices) takes these fields instead of the defaults.
 */
export function overrideRuntime(overrides: Partial<Runtime>): void {
  runtimeOverrides = overrides;
  resetServices();
}

// Each handler's variables are checked on its first invocation; a missing one fails it naming the variable.
const chargeRun = memoised(() =>
  buildChargeRunServices(loadEnvironment(chargeRunEnvironment), defaultRuntime()),
);
const billing = memoised(
  () => buildBillingServices(loadEnvironment(billingEnvironment), defaultRuntime()),
  GATEWAY_SECRET_MAX_AGE_SECONDS * 1000,
);
const partnerToken = memoised(
  () => buildPartnerTokenServices(loadEnvironment(partnerTokenEnvironment), defaultRuntime()),
  GATEWAY_SECRET_MAX_AGE_SECONDS * 1000,
);

/** Variables: chargeRunEnvironment (TABLE_NAME, CHARGE_QUEUE_URL). */
export const getChargeRunServices = (): Promise<ChargeRunDeps> => chargeRun.get();
/** Variables: billingEnvironment. Rebuilt every GATEWAY_SECRET_MAX_AGE_SECONDS so a rotated secret is picked up. */
export const getBillingServices = (): Promise<RuntimeServices> => billing.get();
/** Variables: partnerTokenEnvironment. */
export const getPartnerTokenServices = (): Promise<PartnerTokenRefreshDeps> => partnerToken.get();

/** Forgets every built service and the SDK clients (tests change process.env between cases). */
export function resetServices(): void {
  for (const memo of memos) memo.reset();
  if (runtime === undefined) return;
  for (const client of [runtime.dynamo, runtime.sqs, runtime.eventBridge, runtime.secretsManager])
    client.destroy();
  runtime = undefined;
}
