import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { subscriptionAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import { observedHandler } from "../runtime/lambda-handler";
import { getQueryServices, type QueryServices } from "../runtime/merchant-api-services";

/** GET /v1/subscriptions/{id}. Variables: queryEnvironment (TABLE_NAME). */
export function getSubscription(request: HttpRequest, services: QueryServices): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return subscriptionAnswer(await services.repository.getSubscription(id));
  });
}

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) =>
  getSubscription(event, await getQueryServices()),
);
