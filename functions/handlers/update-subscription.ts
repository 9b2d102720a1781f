import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { subscriptionIdParams, updateSubscriptionBody } from "../api/merchant-api-schemas";
import { type ChangeDeps, updateCustomer } from "../core/lifecycle/subscription-changes";

/** POST /v1/subscriptions/{id}: the customer's external_id and the metadata, edited. */
export function run(request: HttpRequest, services: ChangeDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, updateSubscriptionBody);
    return idempotentPost(request, services, body, async () =>
      changeAnswer(await updateCustomer(id, body, services)),
    );
  });
}
