import { notFound } from "../api/errors";
import { bodyOf, created, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { createPortalSessionBody } from "../api/merchant-api-schemas";
import type { SubscriptionStore } from "../core/ports/billing-repository";
import { type PageLinks, portalLinkOf } from "../pages/shared/page-links";

export interface PortalSessionDeps extends IdempotencyDeps {
  readonly repository: SubscriptionStore;
  readonly links: PageLinks;
}

/**
 * POST /v1/portal-sessions: a signed link to the customer portal of one subscription or of every subscription of a
 * customer (external_id); 404 when there is none. Nothing is stored: the link carries its scope and expiry.
 */
export function run(request: HttpRequest, services: PortalSessionDeps): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createPortalSessionBody);
    return idempotentPost(request, services, body, async () => {
      const { subscription_id, external_id, return_url, lang, expires_in_minutes } = body;
      const exists =
        subscription_id !== undefined
          ? (await services.repository.getSubscription(subscription_id)) !== undefined
          : (await services.repository.listSubscriptions({ external_id }, { limit: 1 })).subscriptions
              .length > 0;
      if (!exists) throw notFound(subscription_id !== undefined ? "subscription" : "customer");
      const subject =
        subscription_id !== undefined ? { subscription_id } : { external_id: external_id ?? "" };
      return created(
        portalLinkOf(services.links, subject, {
          ttlMs: expires_in_minutes === undefined ? undefined : expires_in_minutes * 60_000,
          returnUrl: return_url,
          lang,
        }),
      );
    });
  });
}
