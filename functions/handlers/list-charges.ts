import { chargeListAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import { defineHandler, lambdaHandler } from "../composition/lambda-entry";
import type { ServicesOf } from "../composition/service-set";
import * as SERVICE_SETS from "../composition/service-sets";
import { listCharges as list } from "../core/charge-list";

/** GET /v1/subscriptions/{id}/charges: scheduled and ad hoc lines, oldest first. */
export function listCharges(
  request: HttpRequest,
  services: ServicesOf<typeof SERVICE_SETS.queries>,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return chargeListAnswer(await list(id, services));
  });
}

export const definition = defineHandler(SERVICE_SETS.queries, listCharges);
export const handler = lambdaHandler(definition);
