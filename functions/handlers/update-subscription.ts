import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyServices, idempotentPost } from "../api/idempotency";
import { subscriptionIdParams, updateSubscriptionBody } from "../api/merchant-api-schemas";
import { defineHandler, lambdaHandler } from "../composition/lambda-entry";
import * as SERVICE_SETS from "../composition/service-sets";
import { type ChangeDeps, updateCustomer } from "../core/subscription-changes";

/** POST /v1/subscriptions/{id}: the customer's external_id and the metadata, edited. */
export function updateSubscription(
  request: HttpRequest,
  services: ChangeDeps & IdempotencyServices,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, updateSubscriptionBody);
    return idempotentPost(request, services, body, async () =>
      changeAnswer(await updateCustomer(id, body, services)),
    );
  });
}

export const definition = defineHandler(SERVICE_SETS.merchantApiChanges, updateSubscription);
export const handler = lambdaHandler(definition);
