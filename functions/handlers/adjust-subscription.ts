import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyServices, idempotentPost } from "../api/idempotency";
import { adjustSubscriptionBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import { adjustAmount, type ChangeDeps } from "../core/subscription-changes";
import { observedHandler } from "../runtime/lambda-handler";
import { getMerchantApiServices } from "../runtime/merchant-api-services";

/** POST /v1/subscriptions/{id}/adjust: the plan amount from the next charge on. Variables: billingEnvironment. */
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

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) =>
  adjustSubscription(event, await getMerchantApiServices()),
);
