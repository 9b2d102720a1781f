import type { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createDynamoDbBillingRepository } from "./adapters/dynamodb-billing-repository";
import { createPaymentGateway } from "./adapters/payment-gateway";
import { createRandomIds } from "./adapters/random-ids";
import { createSqsChargeQueue } from "./adapters/sqs-charge-queue";
import { type ChargePolicy, DEFAULT_CHARGE_POLICY } from "./core/charge-policy";
import type { Clock, EventPublisher } from "./core/ports";
import type { GatewayConfigInput } from "./gateway/config";
import { joinUrl } from "./gateway/context";
import { createGatewayClient } from "./gateway/gateway-client";
import type { PartnerTokenStore } from "./gateway/partner-token";
import type { FetchLike } from "./gateway/transport";

export interface BillingServicesOptions {
  readonly dynamo: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly sqs: SQSClient;
  readonly chargeQueueUrl: string;
  readonly events: EventPublisher;
  readonly gateway: GatewayConfigInput;
  readonly clock: Clock;
  /** Public base URL of our webhooks (…/webhooks): status_url and recurring_noti_url are built from it. */
  readonly webhookBaseUrl: string;
  /** The merchant's page a customer returns to from the payment window when a checkout names none. */
  readonly defaultReturnUrl?: string;
  readonly policy?: Partial<ChargePolicy>;
  readonly lang?: string;
  readonly dueLookbackHours?: number;
  readonly partnerTokenStore?: PartnerTokenStore;
  readonly fetchImpl?: FetchLike;
}

/**
 * The composition root: the real adapters behind every port of the billing core. Lambda handlers build it once per
 * container from their environment; local mode and the integration tests build it against the emulators and the
 * sandbox. The result satisfies the dependencies of every core use case.
 */
export function createBillingServices(options: BillingServicesOptions) {
  const { clock } = options;
  const gatewayClient = createGatewayClient(options.gateway, {
    now: () => clock.now(),
    fetchImpl: options.fetchImpl,
    partnerTokenStore: options.partnerTokenStore,
  });
  return {
    repository: createDynamoDbBillingRepository({
      client: options.dynamo,
      tableName: options.tableName,
      lookbackHours: options.dueLookbackHours,
    }),
    queue: createSqsChargeQueue({ client: options.sqs, queueUrl: options.chargeQueueUrl }),
    gatewayClient,
    gateway: createPaymentGateway(gatewayClient.payments, { lang: options.lang ?? "EN" }),
    events: options.events,
    clock,
    ids: createRandomIds(),
    policy: { ...DEFAULT_CHARGE_POLICY, ...options.policy },
    statusUrl: joinUrl(options.webhookBaseUrl, "/status"),
    defaultReturnUrl: options.defaultReturnUrl ?? options.webhookBaseUrl,
    /** The gateway's recurring_noti_url for one subscription: our recurring webhook, naming the subscription. */
    recurringNotifyUrl: (subscriptionId: string) =>
      `${joinUrl(options.webhookBaseUrl, "/recurring")}?subscription_id=${encodeURIComponent(subscriptionId)}`,
  };
}

export type BillingServices = ReturnType<typeof createBillingServices>;
