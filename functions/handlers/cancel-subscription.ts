import { changeAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import { defineHandler } from "../composition/handler-definition";
import { lambdaHandler } from "../composition/lambda-entry";
import { SERVICE_SETS } from "../composition/service-sets";
import { type ChangeDeps, cancelSubscription as cancel } from "../core/subscription-changes";

/** DELETE /v1/subscriptions/{id}: idempotent by nature (canceling again answers the same). */
export function cancelSubscription(request: HttpRequest, services: ChangeDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return changeAnswer(await cancel(id, services));
  });
}

export const definition = defineHandler(SERVICE_SETS.merchantApiChanges, cancelSubscription);
export const handler = lambdaHandler(definition);
