import { subscriptionListAnswer } from "../api/answers";
import { pageOrBadCursor } from "../api/errors";
import { type HttpRequest, type HttpResult, queryOf, serve } from "../api/http";
import { listSubscriptionsQuery } from "../api/merchant-api-schemas";
import type { SubscriptionStore } from "../core/ports/billing-repository";

/** Subscriptions on a page when the caller names no limit. */
const DEFAULT_LIMIT = 20;

/** GET /v1/subscriptions?status=&external_id=&limit=&cursor=: one page, from indexes. */
export function run(
  request: HttpRequest,
  services: { readonly repository: SubscriptionStore },
): Promise<HttpResult> {
  return serve(async () => {
    const { cursor, limit = DEFAULT_LIMIT, ...query } = queryOf(request, listSubscriptionsQuery);
    const page = await pageOrBadCursor(() => services.repository.listSubscriptions(query, { limit, cursor }));
    return subscriptionListAnswer(page);
  });
}
