import { refundAnswer } from "../api/answers";
import { notFound } from "../api/errors";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { chargeIdParams, createRefundBody } from "../api/merchant-api-schemas";
import { attemptKeyOf } from "../core/base/order-id";
import type { IdSource } from "../core/ports/clock";
import { type RefundDeps, refundCharge } from "../core/refunds/refunds";

/** POST /v1/charges/{id}/refunds: full or partial refund of a charge. */
export function run(
  request: HttpRequest,
  services: RefundDeps & IdempotencyDeps & { readonly ids: IdSource },
): Promise<HttpResult> {
  return serve(async () => {
    const chargeId = pathOf(request, chargeIdParams).id;
    const charge = attemptKeyOf(chargeId);
    if (!charge) throw notFound("charge");
    const body = bodyOf(request, createRefundBody);
    return idempotentPost(request, services, body, async (requestKey) => {
      // The refund_id follows from the request's key: a retried request meets its first refund, never a second.
      const refund_id =
        requestKey === undefined ? services.ids.refundId() : services.ids.refundIdFor(requestKey, chargeId);
      return refundAnswer(await refundCharge({ charge, refund_id, ...body }, services));
    });
  });
}
