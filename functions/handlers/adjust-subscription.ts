import { paidChangeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { adjustSubscriptionBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import { changePlan, type PlanChangeDeps } from "../core/lifecycle/plan-change";

/**
 * POST /v1/subscriptions/{id}/adjust: a new plan, now or at the next renewal; an upgrade with charge_now pays the
 * prorated difference at once, once per Idempotency-Key, and a decrease with refund_now gives its unused part back.
 */
export function run(request: HttpRequest, services: PlanChangeDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, adjustSubscriptionBody);
    return idempotentPost(request, services, body, async (requestKey) =>
      paidChangeAnswer(await changePlan({ subscription_id: id, ...body, request_key: requestKey }, services)),
    );
  });
}
