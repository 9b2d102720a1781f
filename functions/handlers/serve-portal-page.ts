import type { HttpRequest } from "../api/http";
import type { PortalPageDeps } from "../pages/portal/portal-actions";
import { portalAnswer } from "../pages/portal/portal-requests";
import { type PageResult, servePage } from "../pages/shared/page-layout";
import { askedLangOf } from "../pages/shared/page-requests";

/**
 * The customer portal (README, Customer portal): GET /portal/{token} shows the link's subscriptions and charges; an
 * action (POST …/subscriptions/{id}/{action}) goes through the same core operations as the merchant API, only when
 * the page offers it, from our own page (form token, Fetch metadata); the new card's window has its own page and
 * returns to /portal/{token}/return; a paid charge's receipt is the gateway's page. Nothing outside the link's
 * subscriptions is ever read into a page.
 */
export function run(request: HttpRequest, services: PortalPageDeps): Promise<PageResult> {
  return servePage(askedLangOf(request), () => portalAnswer(request, services));
}
