import { z } from "zod";
import {
  okReply,
  PARTNER_SUCCESS_CODE,
  parseFields,
  partnerOkReply,
  partnerReply,
  ReplyError,
} from "../http/replies";
import { defineRoute, type RouteDefinition } from "../http/routes";
import type { Merchant } from "../state/merchant-config";
import type { PartnerSubscription } from "../state/partner-store";
import { controlMerchant, controlMid } from "./control-merchant";
import { deliverableUrl } from "./request-fields";

// Partner API (seed 002) on {partner_url}. The server answers AUTH_3000 for a wrong or missing apiKey header and
// AUTH_3001 for an unknown or expired bearer token. Invented: a {merchantId} other than the token's merchant (its
// mid) is 403 AUTH_3002; an unknown {publicId} is 404 CMN_4004. The templates endpoint is not served: the seed
// shows neither its request nor its response.

const WEBHOOKS_PATH = "/api/v1/partner/merchants/:merchantId/webhooks";

// Request bodies (seed 002): unlike the payment API, not all strings — eventTypes is an array, isActive a boolean.
const eventTypes = z.array(z.string().min(1, "is required")).min(1, "must name at least one event type");
const createWebhookRequest = z.looseObject({ endpointUrl: deliverableUrl, eventTypes });
const updateWebhookRequest = createWebhookRequest.extend({ isActive: z.boolean().optional() });

/** A webhook subscription as the partner API shows it. */
interface WebhookSubscription {
  readonly id: string;
  readonly endpointUrl: string;
  readonly eventTypes: readonly string[];
  readonly isActive: boolean;
  readonly createdAt: string;
}
const SUBSCRIPTION_PATH = `${WEBHOOKS_PATH}/:publicId`;

/** The token grants access to its own merchant only. */
function requireOwnMerchant(merchantId: string, merchant: Merchant): void {
  if (merchantId !== merchant.mid) {
    throw new ReplyError(
      partnerReply(403, "AUTH_3002", "The access token does not grant access to this merchant"),
    );
  }
}

const subscriptionNotFound = () => partnerReply(404, "CMN_4004", "Webhook subscription not found");

/** The subscription as the API shows it (the store's mid stays inside). */
function subscriptionView(subscription: PartnerSubscription): WebhookSubscription {
  const { id, endpointUrl, eventTypes, isActive, createdAt } = subscription;
  return { id, endpointUrl, eventTypes: [...eventTypes], isActive, createdAt };
}

const bearer = { auth: "partner-bearer" } as const;

const expireTokensBody = z.strictObject({ mid: controlMid });

export const partnerRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: "partner.token",
    method: "GET",
    path: "/api/v1/partner/auth/token",
    auth: "partner-api-key",
    handler: (_request, { merchant, ledger, clock }) => {
      const issued = ledger.partner.issueToken(merchant.mid, clock.now());
      const token = { token: issued.token, expiredAt: issued.expiresAt.toISOString() };
      return partnerOkReply(token);
    },
  }),
  defineRoute({
    ...bearer,
    name: "partner.webhooks.create",
    method: "POST",
    path: WEBHOOKS_PATH,
    handler: (request, { merchant, ledger, clock }) => {
      requireOwnMerchant(request.params.merchantId, merchant);
      const body = parseFields(createWebhookRequest, request.body);
      return partnerOkReply(
        subscriptionView(ledger.partner.createSubscription(merchant.mid, body, clock.now())),
      );
    },
  }),
  defineRoute({
    ...bearer,
    name: "partner.webhooks.list",
    method: "GET",
    path: WEBHOOKS_PATH,
    handler: (request, { merchant, ledger }) => {
      requireOwnMerchant(request.params.merchantId, merchant);
      return partnerOkReply(ledger.partner.listSubscriptions(merchant.mid).map(subscriptionView));
    },
  }),
  defineRoute({
    ...bearer,
    name: "partner.webhooks.update",
    method: "PUT",
    path: SUBSCRIPTION_PATH,
    handler: (request, { merchant, ledger }) => {
      requireOwnMerchant(request.params.merchantId, merchant);
      const body = parseFields(updateWebhookRequest, request.body);
      const updated = ledger.partner.updateSubscription(merchant.mid, request.params.publicId, body);
      return updated.ok ? partnerOkReply(subscriptionView(updated.value)) : subscriptionNotFound();
    },
  }),
  defineRoute({
    ...bearer,
    name: "partner.webhooks.delete",
    method: "DELETE",
    path: SUBSCRIPTION_PATH,
    handler: (request, { merchant, ledger }) => {
      requireOwnMerchant(request.params.merchantId, merchant);
      const deleted = ledger.partner.deleteSubscription(merchant.mid, request.params.publicId);
      // The seed's delete answer is the envelope with code and message only.
      return deleted.ok
        ? { status: 200, body: { code: PARTNER_SUCCESS_CODE, message: "Success" } }
        : subscriptionNotFound();
    },
  }),
  defineRoute({
    auth: "none",
    faults: false,
    body: "optional",
    name: "sandbox.partner.tokens.expire",
    method: "POST",
    path: "/sandbox/partner/tokens/expire",
    handler: (request, { merchants, ledger }) => {
      const body = parseFields(expireTokensBody, request.body);
      const merchant = controlMerchant(merchants, body.mid);
      return okReply({ mid: merchant.mid, expired: ledger.partner.revokeTokens(merchant.mid) });
    },
  }),
];
