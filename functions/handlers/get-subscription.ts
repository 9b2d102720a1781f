import { subscriptionAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import type { SubscriptionStore } from "../core/ports/billing-repository";

/** GET /v1/subscriptions/{id}. */
export function run(
  request: HttpRequest,
  services: { readonly repository: SubscriptionStore },
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return subscriptionAnswer(await services.repository.getSubscription(id));
  });
}
