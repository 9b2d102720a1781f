import { chargeListAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import type { ChargeListDeps } from "../core/charging/charge-list";
import { listCharges as list } from "../core/charging/charge-list";

/** GET /v1/subscriptions/{id}/charges: scheduled and ad hoc lines, oldest first. */
export function run(request: HttpRequest, services: ChargeListDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return chargeListAnswer(await list(id, services));
  });
}
