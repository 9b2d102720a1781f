import type { HttpRequest } from "../api/http";
import { type CheckoutPageDeps, checkoutAnswer } from "../pages/checkout/checkout-requests";
import { type PageResult, servePage } from "../pages/shared/page-layout";
import { askedLangOf } from "../pages/shared/page-requests";

/**
 * The hosted checkout (README, Hosted checkout): GET /pay/{token} shows the checkout as it stands; the window's
 * return (POST or GET /pay/{token}/return) leads there to wait for the result; POST /pay/{token}/retry opens the
 * next try after a refused payment. Nothing here trusts what the window's return carries: the result is taken only
 * from status_url, verified. The link expires with the checkout: once it has, any of them says the checkout expired
 * (if it did; a paid one's link only that the link expired).
 */
export function run(request: HttpRequest, services: CheckoutPageDeps): Promise<PageResult> {
  return servePage(askedLangOf(request), () => checkoutAnswer(request, services));
}
