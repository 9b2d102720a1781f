import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { chargeListAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import { listCharges as list } from "../core/charge-list";
import { observedHandler } from "../runtime/lambda-handler";
import { getQueryServices, type QueryServices } from "../runtime/merchant-api-services";

/** GET /v1/subscriptions/{id}/charges: scheduled and ad hoc lines, oldest first. Variables: queryEnvironment. */
export function listCharges(request: HttpRequest, services: QueryServices): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return chargeListAnswer(await list(id, services));
  });
}

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) =>
  listCharges(event, await getQueryServices()),
);
