import { subscriptionAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import { defineHandler, lambdaHandler } from "../composition/lambda-entry";
import type { ServicesOf } from "../composition/service-set";
import * as SERVICE_SETS from "../composition/service-sets";

/** GET /v1/subscriptions/{id}. */
export function getSubscription(
  request: HttpRequest,
  services: ServicesOf<typeof SERVICE_SETS.queries>,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return subscriptionAnswer(await services.repository.getSubscription(id));
  });
}

export const definition = defineHandler(SERVICE_SETS.queries, getSubscription);
export const handler = lambdaHandler(definition);
