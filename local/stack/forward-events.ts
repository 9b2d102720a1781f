import { randomUUID } from "node:crypto";
import { createdWebhookEndpointView, webhookEndpointListView } from "../../functions/api/merchant-api-views";
import { MerchantClient } from "../clients/merchant-client";

// `npm start -- --forward-events <url>` (README, Local mode): every event POSTed to a URL on this machine, signed as
// our webhooks are, so a SaaS runs its own access-granting code against them — Stripe's `stripe listen --forward-to`.
// It is a webhook endpoint like any other, registered through the merchant API: the same delivery, signature and
// retries on the local clock.

/** Marks the endpoint as local mode's own: the next start with the same URL replaces it (its secret is not kept). */
const DESCRIPTION = "npm start --forward-events";

export interface ForwardedEvents {
  readonly endpointId: string;
  /** The signing secret of every forwarded event (Standard Webhooks: whsec_ and base64). */
  readonly secret: string;
}

/** What `npm start` prints under the URL: a receiver's verification with the standardwebhooks package. */
export function verificationSnippet(secret: string): string {
  return [
    `  // npm install standardwebhooks`,
    `  import { Webhook } from "standardwebhooks";`,
    `  const webhook = new Webhook("${secret}");`,
    `  // rawBody: the body exactly as received; throws unless it is signed with the secret within 5 minutes`,
    `  const event = webhook.verify(rawBody, headers);`,
  ].join("\n");
}

export async function forwardEvents(apiUrl: string, apiKey: string, url: string): Promise<ForwardedEvents> {
  const client = new MerchantClient(apiUrl, apiKey);
  const { data } = await client.get("/v1/webhook-endpoints", webhookEndpointListView);
  for (const endpoint of data.filter((known) => known.url === url && known.description === DESCRIPTION))
    await client.delete(`/v1/webhook-endpoints/${endpoint.id}`);
  const answer = await client.post("/v1/webhook-endpoints", { url, description: DESCRIPTION }, randomUUID());
  const created = createdWebhookEndpointView.safeParse(answer.body);
  if (!created.success)
    throw new Error(
      `--forward-events ${url} was refused (HTTP ${answer.status}): ${JSON.stringify(answer.body)}`,
    );
  return { endpointId: created.data.id, secret: created.data.secret };
}
