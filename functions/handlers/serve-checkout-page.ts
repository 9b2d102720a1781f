import type { HttpRequest } from "../api/http";
import { type CheckoutDeps, reopenCheckout } from "../core/lifecycle/checkout";
import { checkoutExpired, checkoutPage, checkoutStateOf, expiredCheckoutPage } from "../pages/checkout-page";
import { type PageResult, seeOther, servePage } from "../pages/page-layout";
import type { LinkClaims, PageLinks } from "../pages/page-links";
import {
  askedLangOf,
  formCameFromOurPage,
  openLink,
  refusedActionPage,
  unknownLinkPage,
} from "../pages/page-requests";
import { CHECKOUT_PAGE_ROUTES, routeKeyOf } from "../pages/page-routes";

export interface CheckoutPageServices extends CheckoutDeps {
  readonly links: PageLinks;
  readonly merchantName?: string;
}

/**
 * The hosted checkout (README, Hosted checkout): GET /pay/{token} shows the checkout as it stands; the window's
 * return (POST or GET /pay/{token}/return) leads there to wait for the result; POST /pay/{token}/retry opens the
 * next try after a refused payment. Nothing here trusts what the window's return carries: the result is taken only
 * from status_url, verified. The link expires with the checkout: once it has, any of them says the checkout expired
 * (if it did; a paid one's link only that the link expired).
 */
export function run(request: HttpRequest, services: CheckoutPageServices): Promise<PageResult> {
  return servePage(askedLangOf(request), async () => {
    const link = openLink(request, services.links, "checkout");
    if (!link.ok)
      return link.expired === undefined
        ? link.page
        : expiredLinkPage(request, link.expired, link.page, services);
    const subscriptionId = link.claims.sub;
    const pageUrl = services.links.url("pay", link.token);
    switch (request.routeKey) {
      case routeKeyOf(CHECKOUT_PAGE_ROUTES.returnPost):
      case routeKeyOf(CHECKOUT_PAGE_ROUTES.returnGet):
        return seeOther(`${pageUrl}?returned=1`);
      case routeKeyOf(CHECKOUT_PAGE_ROUTES.retry): {
        if (!formCameFromOurPage(request, services.links, link.token))
          return refusedActionPage(askedLangOf(request));
        await reopenCheckout(subscriptionId, services);
        return seeOther(pageUrl);
      }
    }
    const subscription = await services.repository.getSubscription(subscriptionId);
    if (subscription === undefined) return unknownLinkPage(askedLangOf(request));
    const lines = await services.repository.listAttempts(subscriptionId);
    return checkoutPage({
      lang: askedLangOf(request, subscription.hosted_checkout?.lang),
      subscription,
      state: checkoutStateOf(
        subscription,
        lines,
        request.queryStringParameters?.returned === "1",
        services.clock.now(),
      ),
      merchantName: services.merchantName,
      retryUrl: services.links.url("pay", link.token, "retry"),
      formToken: services.links.formToken(link.token),
    });
  });
}

/** An expired link of a checkout that expired unpaid says so; any other only that the link expired (`linkExpired`). */
async function expiredLinkPage(
  request: HttpRequest,
  claims: LinkClaims,
  linkExpired: PageResult,
  services: CheckoutPageServices,
): Promise<PageResult> {
  const subscription = await services.repository.getSubscription(claims.sub);
  if (subscription === undefined || !checkoutExpired(subscription, services.clock.now())) return linkExpired;
  return expiredCheckoutPage(askedLangOf(request, subscription.hosted_checkout?.lang), subscription);
}
