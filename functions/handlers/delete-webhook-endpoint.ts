import { webhookEndpointAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { emptyBody, webhookEndpointIdParams } from "../api/merchant-api-schemas";
import { deleteWebhookEndpoint, type WebhookEndpointDeps } from "../core/delivery/webhooks";

/** DELETE /v1/webhook-endpoints/{id}: the endpoint receives nothing more; answers it (404 when unknown). */
export function run(request: HttpRequest, services: Pick<WebhookEndpointDeps, "store">): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, webhookEndpointIdParams);
    bodyOf(request, emptyBody);
    return webhookEndpointAnswer(await deleteWebhookEndpoint(id, services));
  });
}
