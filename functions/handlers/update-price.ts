import { priceUpdatedAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { priceIdParams, updatePriceBody } from "../api/price-schemas";
import { type PriceDeps, updatePrice } from "../core/catalog/prices";

/** POST /v1/prices/{id}: archive or restore a price, move its lookup_key, edit its metadata. */
export function run(request: HttpRequest, services: PriceDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, priceIdParams);
    const body = bodyOf(request, updatePriceBody);
    return idempotentPost(request, services, body, async () =>
      priceUpdatedAnswer(await updatePrice(id, body, services)),
    );
  });
}
