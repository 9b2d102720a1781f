import type { z } from "zod";
import { parseRequest } from "../functions/gateway/errors";
import {
  WEBHOOK_ADMIN_SUCCESS_CODES,
  type webhookInfoResponseSchema,
  webhookRegisterRequestSchema,
} from "../functions/gateway/schemas/webhook-admin";
import type { Reply } from "./replies";
import { defineRoute, type RouteDefinition } from "./routes";
import type { WebhookRegistration } from "./webhook-store";

// Webhook management API (seed 001) on {webhook_admin_url}: Basic auth (assumed, as the client does). A type other
// than the two payout types is EC00 "Invalid parameter: type" (the client's own schema decides).

/** The seed's samples answer rescode "SUCCESS" here (the client also accepts "0000"). */
const [, WEBHOOK_ADMIN_SUCCESS] = WEBHOOK_ADMIN_SUCCESS_CODES;

function webhookReply(registration: WebhookRegistration | undefined): Reply {
  const body = {
    rescode: WEBHOOK_ADMIN_SUCCESS,
    resmsg: WEBHOOK_ADMIN_SUCCESS,
    type: "webhook",
    data: registration ? { url: registration.url, type: [...registration.types] } : null,
  } satisfies z.input<typeof webhookInfoResponseSchema>;
  return { status: 200, body };
}

export const webhookAdminRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: "webhooks.register",
    method: "POST",
    path: "/v1/api/webhook/register",
    auth: "basic",
    handler: (request, { merchant, ledger }) => {
      const body = parseRequest(webhookRegisterRequestSchema, request.body);
      return webhookReply(ledger.webhooks.register(merchant.mid, body.url, body.type));
    },
  }),
  defineRoute({
    name: "webhooks.info",
    method: "GET",
    path: "/v1/api/webhook/info",
    auth: "basic",
    handler: (_request, { merchant, ledger }) => webhookReply(ledger.webhooks.find(merchant.mid)),
  }),
];
