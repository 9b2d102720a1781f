import { webhookEndpointCreatedAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { createWebhookEndpointBody } from "../api/merchant-api-schemas";
import { createWebhookEndpoint, type WebhookEndpointDeps } from "../core/delivery/webhooks";

/**
 * POST /v1/webhook-endpoints: registers an endpoint (its URL checked: https, public addresses) and answers it with
 * its signing secret, the only answer that shows it; 409 once the account has as many as it may.
 */
export function run(
  request: HttpRequest,
  services: WebhookEndpointDeps & IdempotencyDeps,
): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createWebhookEndpointBody);
    return idempotentPost(request, services, body, async (requestKey) =>
      webhookEndpointCreatedAnswer(await createWebhookEndpoint(body, requestKey, services)),
    );
  });
}
