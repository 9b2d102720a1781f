import { subscriptionAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import type { ServicesOf } from "../composition/service-set";
import type * as SERVICE_SETS from "../composition/service-sets";

/** GET /v1/subscriptions/{id}. */
export function run(
  request: HttpRequest,
  services: ServicesOf<typeof SERVICE_SETS.queries>,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return subscriptionAnswer(await services.repository.getSubscription(id));
  });
}
