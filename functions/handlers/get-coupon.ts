import { couponAnswer } from "../api/answers";
import { couponIdParams } from "../api/coupon-schemas";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import type { Clock } from "../core/ports/clock";
import type { CouponStore } from "../core/ports/coupon-store";

/** GET /v1/coupons/{id}: the coupon and how often it was redeemed. */
export function run(
  request: HttpRequest,
  services: { readonly coupons: CouponStore; readonly clock: Clock },
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, couponIdParams);
    return couponAnswer(await services.coupons.getCoupon(id), services.clock.now());
  });
}
