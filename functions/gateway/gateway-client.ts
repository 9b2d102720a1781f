import type { GatewayConfigInput } from "./config";
import { createGatewayContext, type GatewayContextOptions } from "./context";
import { createPartnerTokenProvider, type PartnerTokenStore } from "./partner-token";
import { createPaymentClient } from "./payment-client";
import { createPartnerClient } from "./resources/partner";
import { createReconciliationClient } from "./resources/reconciliation";
import { createWebhookAdminClient } from "./resources/webhook-admin";

export interface GatewayClientOptions extends GatewayContextOptions {
  /** Where the partner JWT is cached; in memory by default, Secrets Manager in the deployed functions. */
  readonly partnerTokenStore?: PartnerTokenStore;
  /** How much validity a stored partner token must still have to be used (2 h by default). */
  readonly partnerTokenRefreshWindowMs?: number;
}

/** One client for the whole gateway: payment, reconciliation, webhook management and partner APIs. */
export function createGatewayClient(config: GatewayConfigInput, options: GatewayClientOptions = {}) {
  const context = createGatewayContext(config, options);
  return {
    context,
    payments: createPaymentClient(context),
    reconciliation: createReconciliationClient(context),
    webhooks: createWebhookAdminClient(context),
    partner: createPartnerClient(
      context,
      createPartnerTokenProvider(context, {
        store: options.partnerTokenStore,
        refreshWindowMs: options.partnerTokenRefreshWindowMs,
      }),
    ),
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
