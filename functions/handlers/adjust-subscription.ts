import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyServices, idempotentPost } from "../api/idempotency";
import { adjustSubscriptionBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import { defineHandler } from "../composition/handler-definition";
import { lambdaHandler } from "../composition/lambda-entry";
import { SERVICE_SETS } from "../composition/service-sets";
import { adjustAmount, type ChangeDeps } from "../core/subscription-changes";

/** POST /v1/subscriptions/{id}/adjust: the plan amount from the next charge on. */
export function adjustSubscription(
  request: HttpRequest,
  services: ChangeDeps & IdempotencyServices,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, adjustSubscriptionBody);
    return idempotentPost(request, services, body, async () =>
      changeAnswer(await adjustAmount(id, body.amount, services)),
    );
  });
}

export const definition = defineHandler(SERVICE_SETS.merchantApiChanges, adjustSubscription);
export const handler = lambdaHandler(definition);
