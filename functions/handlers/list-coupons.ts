import { couponListAnswer } from "../api/answers";
import { listCouponsQuery } from "../api/coupon-schemas";
import { pageOrBadCursor } from "../api/errors";
import { type HttpRequest, type HttpResult, queryOf, serve } from "../api/http";
import type { Clock } from "../core/ports/clock";
import type { CouponStore } from "../core/ports/coupon-store";

/** Coupons on a page when the caller names no limit. */
const DEFAULT_LIMIT = 20;

/** GET /v1/coupons?limit=&cursor=: one page of coupons, by id. */
export function run(
  request: HttpRequest,
  services: { readonly coupons: CouponStore; readonly clock: Clock },
): Promise<HttpResult> {
  return serve(async () => {
    const { cursor, limit = DEFAULT_LIMIT } = queryOf(request, listCouponsQuery);
    const page = await pageOrBadCursor(() => services.coupons.listCoupons({ limit, cursor }));
    return couponListAnswer(page, services.clock.now());
  });
}
