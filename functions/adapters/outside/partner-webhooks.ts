import type { PartnerWebhooks } from "../../core/partner/partner-webhook-setup";
import type { PartnerClient } from "../../gateway/resources/partner";

/** The merchant's own webhook subscriptions through the partner client (no merchant id: the token's merchant). */
export function createPartnerWebhooks(client: PartnerClient): PartnerWebhooks {
  return {
    listWebhooks: () => client.listWebhooks(),
    createWebhook: (input) => client.createWebhook(undefined, input),
    updateWebhook: (id, input) => client.updateWebhook(undefined, id, input),
  };
}
