import { type HttpRequest, type HttpResult, ok, serve } from "../api/http";
import { webhookEndpointView } from "../api/views";
import type { WebhookStore } from "../core/ports/webhook-ports";

/** GET /v1/webhook-endpoints: every endpoint, without its secret. */
export function run(
  _request: HttpRequest,
  services: { readonly store: Pick<WebhookStore, "listEndpoints"> },
): Promise<HttpResult> {
  return serve(async () => {
    const endpoints = await services.store.listEndpoints();
    return ok({
      data: endpoints.toSorted((a, b) => a.created_at.localeCompare(b.created_at)).map(webhookEndpointView),
    });
  });
}
