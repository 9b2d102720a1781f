import type { z } from "zod";
import type { GatewayContext } from "../context";
import { parseRequest } from "../errors";
import { callPartnerApi, dataOf } from "../partner-call";
import { createPartnerTokenProvider, type PartnerToken, type PartnerTokenProvider } from "../partner-token";
import type { CallKind, GatewayResult } from "../result";
import {
  type CreateWebhookRequest,
  createWebhookRequest,
  deleteWebhookResponse,
  merchantPath,
  PARTNER_TOKEN_REJECTED_CODE,
  type PartnerEnvelope,
  subscriptionPath,
  type UpdateWebhookRequest,
  updateWebhookRequest,
  type WebhookSubscription,
  webhookListResponse,
  webhookSubscriptionResponse,
} from "../schemas/partner";
import type { HttpMethod } from "../transport";

export interface PartnerClient {
  /** Requests a new access token now and stores it. */
  token(): Promise<GatewayResult<PartnerToken>>;
  createWebhook(
    merchantId: string | undefined,
    body: CreateWebhookRequest,
  ): Promise<GatewayResult<WebhookSubscription>>;
  listWebhooks(merchantId?: string): Promise<GatewayResult<WebhookSubscription[]>>;
  updateWebhook(
    merchantId: string | undefined,
    publicId: string,
    body: UpdateWebhookRequest,
  ): Promise<GatewayResult<WebhookSubscription>>;
  /** Success carries the envelope (code and message); the API sends no data. */
  deleteWebhook(merchantId: string | undefined, publicId: string): Promise<GatewayResult<PartnerEnvelope>>;
}

interface AuthorizedCall<S extends z.ZodType> {
  readonly path: string;
  readonly method: HttpMethod;
  readonly body?: unknown;
  readonly kind: CallKind;
  readonly response: S;
}

/** The partner API (seed 002). merchantId defaults to config.partnerMerchantId, then config.mid. */
export function createPartnerClient(
  context: GatewayContext,
  tokens: PartnerTokenProvider = createPartnerTokenProvider(context),
): PartnerClient {
  const defaultMerchantId = context.config.partnerMerchantId ?? context.config.mid;

  const send = <S extends z.ZodType>(call: AuthorizedCall<S>, token: string) =>
    callPartnerApi(context, { ...call, headers: { authorization: `Bearer ${token}` } });

  // AUTH_3001 means the call was refused, so one retry with a new token cannot repeat an effect.
  const authorized = async <S extends z.ZodType>(
    call: AuthorizedCall<S>,
  ): Promise<GatewayResult<z.output<S>>> => {
    const first = await tokens.current();
    if (first.kind !== "success") return first;
    const outcome = await send(call, first.value.token);
    if (outcome.kind !== "invalid" || outcome.code !== PARTNER_TOKEN_REJECTED_CODE) return outcome;
    const renewed = await tokens.forceRefresh(first.value.token);
    return renewed.kind === "success" ? send(call, renewed.value.token) : renewed;
  };

  const webhooksPath = (merchantId: string | undefined) => {
    const path = parseRequest(merchantPath, { merchantId: merchantId ?? defaultMerchantId });
    return `/api/v1/partner/merchants/${encodeURIComponent(path.merchantId)}/webhooks`;
  };

  const subscriptionUrlPath = (merchantId: string | undefined, publicId: string) => {
    const path = parseRequest(subscriptionPath, { merchantId: merchantId ?? defaultMerchantId, publicId });
    return `${webhooksPath(path.merchantId)}/${encodeURIComponent(path.publicId)}`;
  };

  return {
    token: () => tokens.forceRefresh(),

    async createWebhook(merchantId, body) {
      const path = webhooksPath(merchantId);
      const request = parseRequest(createWebhookRequest, body);
      return dataOf(
        await authorized({
          path,
          method: "POST",
          body: request,
          kind: "mutation",
          response: webhookSubscriptionResponse,
        }),
      );
    },

    async listWebhooks(merchantId) {
      const path = webhooksPath(merchantId);
      return dataOf(await authorized({ path, method: "GET", kind: "read", response: webhookListResponse }));
    },

    async updateWebhook(merchantId, publicId, body) {
      const path = subscriptionUrlPath(merchantId, publicId);
      const request = parseRequest(updateWebhookRequest, body);
      return dataOf(
        await authorized({
          path,
          method: "PUT",
          body: request,
          kind: "mutation",
          response: webhookSubscriptionResponse,
        }),
      );
    },

    async deleteWebhook(merchantId, publicId) {
      const path = subscriptionUrlPath(merchantId, publicId);
      return authorized({ path, method: "DELETE", kind: "mutation", response: deleteWebhookResponse });
    },
  };
}
