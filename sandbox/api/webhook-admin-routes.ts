import * as z from "zod";
import { parseFields, type Reply } from "../http/replies";
import { defineRoute, type RouteDefinition } from "../http/routes";
import type { WebhookRegistration } from "../state/webhook-store";
import { givenUrl } from "./request-fields";

// Webhook management API (seed 001) on {webhook_admin_url}: Basic auth (assumed: the seed names none). A type other
// than the two payout types is EC00 "Invalid parameter: type".

/** The types the API registers; CHARGEBACK is set up through the gateway's support only. */
export const REGISTRABLE_WEBHOOK_TYPES = [
  "PAYOUT_SUBMALL_REVIEW_COMPLETE",
  "PAYOUT_REMITTANCE_COMPLETE",
] as const;

const registerRequest = z.looseObject({ url: givenUrl, type: z.enum(REGISTRABLE_WEBHOOK_TYPES) });

/** The seed's samples answer rescode "SUCCESS" here rather than "0000". */
const WEBHOOK_ADMIN_SUCCESS = "SUCCESS";

function webhookReply(registration: WebhookRegistration | undefined): Reply {
  const body = {
    rescode: WEBHOOK_ADMIN_SUCCESS,
    resmsg: WEBHOOK_ADMIN_SUCCESS,
    type: "webhook",
    data: registration ? { url: registration.url, type: [...registration.types] } : null,
  };
  return { status: 200, body };
}

export const webhookAdminRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: "webhooks.register",
    method: "POST",
    path: "/v1/api/webhook/register",
    auth: "basic",
    handler: (request, { merchant, ledger }) => {
      const body = parseFields(registerRequest, request.body);
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
