import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { pauseSubscriptionBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import { type ChangeDeps, pauseSubscription as pause } from "../core/lifecycle/subscription-changes";

/** POST /v1/subscriptions/{id}/pause: no charges until resumed, or until `resume_at`. */
export function run(request: HttpRequest, services: ChangeDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, pauseSubscriptionBody);
    return idempotentPost(request, services, body, async () =>
      changeAnswer(await pause(id, body.resume_at, services)),
    );
  });
}
