import { priceAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { priceIdParams } from "../api/price-schemas";
import type { PriceStore } from "../core/ports/price-store";

/** GET /v1/prices/{id}. */
export function run(request: HttpRequest, services: { readonly prices: PriceStore }): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, priceIdParams);
    return priceAnswer(await services.prices.getPrice(id));
  });
}
