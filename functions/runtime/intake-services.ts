import { TransformParameterError } from "@aws-lambda-powertools/parameters";
import * as z from "zod";
import { createDynamoDbBillingRepository } from "../adapters/dynamodb-billing-repository";
import { createDynamoDbLedgerReader } from "../adapters/dynamodb-ledger-reader";
import { createPartnerWebhooks } from "../adapters/partner-webhooks";
import { createSecretsManagerTokenStore } from "../adapters/secrets-manager-token-store";
import { createSqsIntakeQueue } from "../adapters/sqs-intake-queue";
import type { IntakeQueue } from "../core/intake-messages";
import type { PartnerWebhookSetupDeps } from "../core/partner-webhook-setup";
import type { Clock } from "../core/ports";
import type { ReconciliationDeps } from "../core/reconciliation";
import { joinUrl } from "../gateway/context";
import { createGatewayClient } from "../gateway/gateway-client";
import type { GatewayWebhookDeps } from "../inbound/gateway-webhook-receipt";
import {
  gatewayWebhookEnvironment,
  intakeEnvironment,
  intakeProcessorEnvironment,
  loadEnvironment,
  partnerWebhookEnvironment,
  reconciliationEnvironment,
} from "./environment";
import { registerSecretValues } from "./redaction";
import {
  buildBillingServices,
  defaultRuntime,
  GATEWAY_SECRET_MAX_AGE_SECONDS,
  gatewayConfig,
  memoised,
  type Runtime,
  type RuntimeServices,
} from "./services-from-env";

// Services of the webhook intake, its processor, the reconciliation and the partner webhook set-up, built from
// each handler's environment (the variables named in environment.ts) once per container.

/** The webhook secret: the current one and, during a rotation, the next (both accepted). */
export const webhookSecretsSchema = z.object({
  current: z.string().min(1),
  next: z.string().min(1).optional(),
});

/** A rotated secret shows within this; the receiver accepts both during the rotation anyway. */
export const WEBHOOK_SECRETS_MAX_AGE_SECONDS = 300;

/** Reads the webhook secrets (cached by Powertools) and registers them with the redactor. */
export async function readWebhookSecrets(runtime: Runtime, secretArn: string): Promise<readonly string[]> {
  let value: unknown;
  try {
    value = await runtime.secrets.get(secretArn, {
      transform: "json",
      maxAge: WEBHOOK_SECRETS_MAX_AGE_SECONDS,
    });
  } catch (error) {
    // The transform error quotes the text it could not parse.
    if (error instanceof TransformParameterError) throw new Error(`webhook secret ${secretArn} is not JSON`);
    throw error;
  }
  const parsed = webhookSecretsSchema.safeParse(value, { reportInput: false });
  if (!parsed.success) throw new Error(`webhook secret ${secretArn} must be {current, next?}`);
  const secrets = [parsed.data.current, ...(parsed.data.next === undefined ? [] : [parsed.data.next])];
  registerSecretValues(secrets);
  return secrets;
}

export interface IntakeReceiverServices {
  readonly queue: IntakeQueue;
  readonly clock: Clock;
}

export function buildIntakeReceiverServices(
  env: z.output<typeof intakeEnvironment>,
  runtime: Runtime,
): IntakeReceiverServices {
  return {
    queue: createSqsIntakeQueue({ client: runtime.sqs, queueUrl: env.INTAKE_QUEUE_URL }),
    clock: runtime.clock,
  };
}

export function buildGatewayWebhookServices(
  env: z.output<typeof gatewayWebhookEnvironment>,
  runtime: Runtime,
): GatewayWebhookDeps {
  return {
    ...buildIntakeReceiverServices(env, runtime),
    repository: createDynamoDbBillingRepository({
      client: runtime.dynamo,
      tableName: env.TABLE_NAME,
      clock: runtime.clock,
    }),
    secrets: () => readWebhookSecrets(runtime, env.WEBHOOK_SECRETS_ARN),
    headerPrefix: env.WEBHOOK_HEADER_PREFIX,
  };
}

/** process-intake: the billing core, plus the intake queue whose records it changes the visibility of. */
export type IntakeProcessorServices = RuntimeServices & { readonly intakeQueueUrl: string };

export async function buildIntakeProcessorServices(
  env: z.output<typeof intakeProcessorEnvironment>,
  runtime: Runtime,
): Promise<IntakeProcessorServices> {
  return { ...(await buildBillingServices(env, runtime)), intakeQueueUrl: env.INTAKE_QUEUE_URL };
}

export type ReconciliationServices = ReconciliationDeps & { readonly clock: Clock };

export async function buildReconciliationServices(
  env: z.output<typeof reconciliationEnvironment>,
  runtime: Runtime,
): Promise<ReconciliationServices> {
  const gateway = createGatewayClient(await gatewayConfig(env, runtime), {
    now: () => runtime.clock.now(),
    fetchImpl: runtime.fetchImpl,
  });
  return {
    transactions: (from, to) => gateway.reconciliation.transactions(from, to),
    ledger: createDynamoDbLedgerReader({ client: runtime.dynamo, tableName: env.TABLE_NAME }),
    repository: createDynamoDbBillingRepository({ client: runtime.dynamo, tableName: env.TABLE_NAME }),
    clock: runtime.clock,
  };
}

export async function buildPartnerWebhookServices(
  env: z.output<typeof partnerWebhookEnvironment>,
  runtime: Runtime,
): Promise<PartnerWebhookSetupDeps> {
  const gateway = createGatewayClient(await gatewayConfig(env, runtime), {
    now: () => runtime.clock.now(),
    fetchImpl: runtime.fetchImpl,
    partnerTokenStore: createSecretsManagerTokenStore({
      client: runtime.secretsManager,
      secretId: env.PARTNER_TOKEN_SECRET_ARN,
    }),
  });
  return {
    partner: createPartnerWebhooks(gateway.partner),
    endpointUrl: joinUrl(env.PUBLIC_WEBHOOK_BASE_URL, "/partner"),
  };
}

const secretAgeMs = GATEWAY_SECRET_MAX_AGE_SECONDS * 1000;
const intakeReceiver = memoised(() =>
  buildIntakeReceiverServices(loadEnvironment(intakeEnvironment), defaultRuntime()),
);
const gatewayWebhook = memoised(() =>
  buildGatewayWebhookServices(loadEnvironment(gatewayWebhookEnvironment), defaultRuntime()),
);
const intakeProcessor = memoised(
  () => buildIntakeProcessorServices(loadEnvironment(intakeProcessorEnvironment), defaultRuntime()),
  secretAgeMs,
);
const reconciliation = memoised(
  () => buildReconciliationServices(loadEnvironment(reconciliationEnvironment), defaultRuntime()),
  secretAgeMs,
);
const partnerWebhook = memoised(
  () => buildPartnerWebhookServices(loadEnvironment(partnerWebhookEnvironment), defaultRuntime()),
  secretAgeMs,
);

/** Variables: intakeEnvironment (INTAKE_QUEUE_URL). */
export const getIntakeReceiverServices = (): Promise<IntakeReceiverServices> => intakeReceiver.get();
/** Variables: gatewayWebhookEnvironment. The secrets are re-read through Powertools' cache on each delivery. */
export const getGatewayWebhookServices = (): Promise<GatewayWebhookDeps> => gatewayWebhook.get();
/** Variables: intakeProcessorEnvironment. */
export const getIntakeProcessorServices = (): Promise<IntakeProcessorServices> => intakeProcessor.get();
/** Variables: reconciliationEnvironment. */
export const getReconciliationServices = (): Promise<ReconciliationServices> => reconciliation.get();
/** Variables: partnerWebhookEnvironment. */
export const getPartnerWebhookServices = (): Promise<PartnerWebhookSetupDeps> => partnerWebhook.get();
