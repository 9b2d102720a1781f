import { BillingApiError, createBillingClient, ok } from "recurring-billing-client";

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

/** Registers `url` through the merchant API (the typed client package), replacing the endpoint of a start before. */
export async function forwardEvents(apiUrl: string, apiKey: string, url: string): Promise<ForwardedEvents> {
  const billing = createBillingClient({ baseUrl: apiUrl, apiKey });
  const { data } = await ok(billing.GET("/v1/webhook-endpoints"));
  for (const endpoint of data.filter((known) => known.url === url && known.description === DESCRIPTION))
    await ok(billing.DELETE("/v1/webhook-endpoints/{id}", { params: { path: { id: endpoint.id } } }));
  try {
    const created = await ok(
      billing.POST("/v1/webhook-endpoints", { body: { url, description: DESCRIPTION } }),
    );
    return { endpointId: created.id, secret: created.secret };
  } catch (error) {
    if (!(error instanceof BillingApiError)) throw error;
    throw new Error(
      `--forward-events ${url} was refused (HTTP ${error.status}): ${error.field ?? ""} ${error.message}`,
    );
  }
}
