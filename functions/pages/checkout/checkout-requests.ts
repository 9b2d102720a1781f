import type { HttpRequest } from "../../api/http";
import { type CheckoutDeps, reopenCheckout } from "../../core/lifecycle/checkout";
import { type PageResult, seeOther } from "../shared/page-layout";
import type { LinkClaims } from "../shared/page-links";
import {
  askedLangOf,
  formCameFromOurPage,
  openLink,
  type PageSettings,
  refusedActionPage,
  unknownLinkPage,
} from "../shared/page-requests";
import { CHECKOUT_PAGE_ROUTES, routeKeyOf } from "../shared/page-routes";
import { checkoutExpired, checkoutPage, checkoutStateOf, expiredCheckoutPage } from "./checkout-page";

// What each request of the hosted checkout comes to, under its link: the window's return, the next try after a
// refused payment, the checkout as it stands. An expired link says the checkout expired when it did.

export type CheckoutPageDeps = CheckoutDeps & PageSettings;

/** A request of the checkout (CHECKOUT_PAGE_ROUTES, by its route key), answered under the link in its path. */
export async function checkoutAnswer(request: HttpRequest, services: CheckoutPageDeps): Promise<PageResult> {
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
}

/** An expired link of a checkout that expired unpaid says so; any other only that the link expired (`linkExpired`). */
async function expiredLinkPage(
  request: HttpRequest,
  claims: LinkClaims,
  linkExpired: PageResult,
  services: CheckoutPageDeps,
): Promise<PageResult> {
  const subscription = await services.repository.getSubscription(claims.sub);
  if (subscription === undefined || !checkoutExpired(subscription, services.clock.now())) return linkExpired;
  return expiredCheckoutPage(askedLangOf(request, subscription.hosted_checkout?.lang), subscription);
}
