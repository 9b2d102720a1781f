import { couponCreatedAnswer } from "../api/answers";
import { createCouponBody } from "../api/coupon-schemas";
import { bodyOf, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { type CouponDeps, createCoupon } from "../core/catalog/coupons";

/** POST /v1/coupons: a coupon, once per Idempotency-Key; 409 when its code is another coupon's. */
export function run(request: HttpRequest, services: CouponDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createCouponBody);
    return idempotentPost(request, services, body, async (requestKey) =>
      couponCreatedAnswer(await createCoupon(body, requestKey, services), services.clock.now()),
    );
  });
}
