import { webhookDeliveriesAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { webhookEndpointIdParams } from "../api/merchant-api-schemas";
import { listWebhookDeliveries, type WebhookEndpointDeps } from "../core/delivery/webhooks";

/** GET /v1/webhook-endpoints/{id}/deliveries: the endpoint's recent deliveries, newest first (404 when unknown). */
export function run(
  request: HttpRequest,
  services: Pick<WebhookEndpointDeps, "store" | "clock">,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, webhookEndpointIdParams);
    return webhookDeliveriesAnswer(await listWebhookDeliveries(id, services));
  });
}
