import { priceCreatedAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { createPriceBody } from "../api/price-schemas";
import { createPrice, type PriceDeps } from "../core/catalog/prices";

/** POST /v1/prices: a price of the catalog, once per Idempotency-Key; 409 when its lookup_key is another price's. */
export function run(request: HttpRequest, services: PriceDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createPriceBody);
    return idempotentPost(request, services, body, async (requestKey) =>
      priceCreatedAnswer(await createPrice(body, requestKey, services)),
    );
  });
}
