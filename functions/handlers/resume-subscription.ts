import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { emptyBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import { type ChangeDeps, resumeSubscription as resume } from "../core/lifecycle/subscription-changes";

/** POST /v1/subscriptions/{id}/resume: charging again (at once when the paid period ended during the pause). */
export function run(request: HttpRequest, services: ChangeDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    bodyOf(request, emptyBody);
    return idempotentPost(request, services, {}, async () => changeAnswer(await resume(id, services)));
  });
}
