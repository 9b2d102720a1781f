import { paidChangeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { subscriptionIdParams, updateSubscriptionBody } from "../api/merchant-api-schemas";
import { type ChangeDeps, editSubscription } from "../core/lifecycle/subscription-changes";
import type { CouponStore } from "../core/ports/coupon-store";

/** POST /v1/subscriptions/{id}: the customer's external_id, the metadata and the coupon, edited. */
export function run(
  request: HttpRequest,
  services: ChangeDeps & IdempotencyDeps & { readonly coupons: CouponStore },
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, updateSubscriptionBody);
    return idempotentPost(request, services, body, async () =>
      paidChangeAnswer(await editSubscription(id, body, services)),
    );
  });
}
