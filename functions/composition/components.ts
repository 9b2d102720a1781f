import type * as z from "zod";
import { authorizerEnvironment, environmentSchema, intakeVariablesSchema } from "../runtime/environment";

// The variables each component of the composition reads. A service set's environment is the union of its
// components' variables, and the CDK binds of a function come from the same component names (lib/function-table.ts).

const table = environmentSchema.pick({ TABLE_NAME: true });
const chargeQueue = environmentSchema.pick({ CHARGE_QUEUE_URL: true });
const intakeQueue = intakeVariablesSchema.pick({ INTAKE_QUEUE_URL: true });
/** The gateway's URLs, the secret holding the merchant's credentials and its REBILL form. */
const gateway = environmentSchema.pick({
  GATEWAY_SECRET_ARN: true,
  PAYMENT_BASE_URL: true,
  WEBHOOK_ADMIN_BASE_URL: true,
  PARTNER_BASE_URL: true,
  GATEWAY_REBILL_ENDPOINT: true,
});
const partnerGateway = gateway.extend(environmentSchema.pick({ PARTNER_TOKEN_SECRET_ARN: true }).shape);
const none = environmentSchema.pick({});

export const COMPONENT_VARIABLES = {
  clock: none,
  ids: none,
  /** The billing table, read and written. */
  repository: table,
  /** The billing table, read only (the merchant API's reads, reconciliation's point look-ups). */
  readRepository: table,
  /** The ledger index (reconciliation). */
  ledger: table,
  /** Idempotency records on the billing table. */
  idempotency: table,
  /** Sending to the charge queue. */
  chargeQueue,
  /** Consuming the charge queue (the worker changes a retried message's visibility). */
  chargeQueueConsumer: chargeQueue,
  intakeQueue,
  intakeQueueConsumer: intakeQueue,
  events: environmentSchema.pick({ EVENT_BUS_NAME: true }),
  /** The payment API (the secret is re-read every GATEWAY_SECRET_MAX_AGE_SECONDS). */
  gateway,
  /** The reconciliation API. */
  gatewayTransactions: gateway,
  /** The partner API's webhook subscriptions (the partner JWT kept in its secret). */
  partnerWebhooks: partnerGateway,
  /** The partner JWT's refresher: the only writer of the token secret. */
  partnerTokenRefresher: partnerGateway,
  /** Our public webhook URLs (status_url, recurring_noti_url, the partner receiver). */
  webhookUrls: environmentSchema.pick({ PUBLIC_WEBHOOK_BASE_URL: true }),
  policy: environmentSchema.pick({ CHARGE_POLICY: true }),
  /** The gateway webhook secrets and the header prefix. */
  webhookSecrets: intakeVariablesSchema.pick({ WEBHOOK_SECRETS_ARN: true, WEBHOOK_HEADER_PREFIX: true }),
  /** The digests of the merchant API keys. */
  apiKeyDigests: authorizerEnvironment,
} satisfies Record<string, z.ZodObject>;

export type ComponentName = keyof typeof COMPONENT_VARIABLES;
