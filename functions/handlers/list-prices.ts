import { priceListAnswer } from "../api/answers";
import { pageOrBadCursor } from "../api/errors";
import { type HttpRequest, type HttpResult, queryOf, serve } from "../api/http";
import { listPricesQuery } from "../api/price-schemas";
import type { PriceStore } from "../core/ports/price-store";

/** Prices on a page when the caller names no limit. */
const DEFAULT_LIMIT = 20;

/** GET /v1/prices?lookup_key=&active=&limit=&cursor=: one page of the catalog, by id; a lookup key finds its price. */
export function run(request: HttpRequest, services: { readonly prices: PriceStore }): Promise<HttpResult> {
  return serve(async () => {
    const {
      lookup_key: lookupKey,
      active,
      cursor,
      limit = DEFAULT_LIMIT,
    } = queryOf(request, listPricesQuery);
    const wanted = active === undefined ? undefined : active === "true";
    if (lookupKey !== undefined) {
      const price = await services.prices.findByLookupKey(lookupKey);
      const kept = price !== undefined && (wanted === undefined || price.active === wanted);
      return priceListAnswer({ prices: kept ? [price] : [] });
    }
    return priceListAnswer(
      await pageOrBadCursor(() => services.prices.listPrices({ active: wanted }, { limit, cursor })),
    );
  });
}
