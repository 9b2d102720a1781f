import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { changeAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import { type ChangeDeps, cancelSubscription as cancel } from "../core/subscription-changes";
import { observedHandler } from "../runtime/lambda-handler";
import { getMerchantApiServices } from "../runtime/merchant-api-services";

/** DELETE /v1/subscriptions/{id}: idempotent by nature (canceling again answers the same). Variables: billingEnvironment. */
export function cancelSubscription(request: HttpRequest, services: ChangeDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return changeAnswer(await cancel(id, services));
  });
}

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) =>
  cancelSubscription(event, await getMerchantApiServices()),
);
