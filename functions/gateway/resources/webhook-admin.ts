import { callMerchantApi, type GatewayContext } from "../context";
import { parseRequest } from "../errors";
import type { GatewayResult } from "../result";
import {
  WEBHOOK_ADMIN_SUCCESS_CODES,
  type WebhookInfoResponse,
  type WebhookRegisterResponse,
  webhookInfoResponseSchema,
  webhookRegisterRequestSchema,
  webhookRegisterResponseSchema,
} from "../schemas/webhook-admin";

export interface WebhookAdminClient {
  /** Registers the merchant's webhook URL for one payout type (a mutation: never retried). */
  register(input: { url: string; type: string }): Promise<GatewayResult<WebhookRegisterResponse>>;
  /** The registered webhook; `data` is null when none is configured. */
  info(): Promise<GatewayResult<WebhookInfoResponse>>;
}

/**
 * Webhook management API on {webhook_admin_url}. The seed shows an Authorization header without its format; the
 * Basic form of the payment API (API key as user name) is assumed.
 */
export function createWebhookAdminClient(context: GatewayContext): WebhookAdminClient {
  const baseUrl = context.config.webhookAdminBaseUrl;
  const success = { successCodes: WEBHOOK_ADMIN_SUCCESS_CODES };
  return {
    async register(input) {
      const body = parseRequest(webhookRegisterRequestSchema, input);
      return callMerchantApi(context, {
        baseUrl,
        path: "/v1/api/webhook/register",
        body,
        kind: "mutation",
        response: webhookRegisterResponseSchema,
        success,
      });
    },

    info() {
      return callMerchantApi(context, {
        baseUrl,
        path: "/v1/api/webhook/info",
        method: "GET",
        kind: "read",
        response: webhookInfoResponseSchema,
        success,
      });
    },
  };
}
