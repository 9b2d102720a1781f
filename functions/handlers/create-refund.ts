import { newRefundId } from "../adapters/random-ids";
import { refundAnswer } from "../api/answers";
import { notFound } from "../api/errors";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyServices, idempotentPost } from "../api/idempotency";
import { chargeIdParams, createRefundBody } from "../api/merchant-api-schemas";
import { defineHandler } from "../composition/handler-definition";
import { lambdaHandler } from "../composition/lambda-entry";
import * as SERVICE_SETS from "../composition/service-sets";
import { attemptKeyOf } from "../core/order-id";
import { type RefundDeps, refundCharge } from "../core/refunds";

/** POST /v1/charges/{id}/refunds: full or partial refund of a charge. */
export function createRefund(
  request: HttpRequest,
  services: RefundDeps & IdempotencyServices,
): Promise<HttpResult> {
  return serve(async () => {
    const charge = attemptKeyOf(pathOf(request, chargeIdParams).id);
    if (!charge) throw notFound("charge");
    const body = bodyOf(request, createRefundBody);
    return idempotentPost(request, services, body, async () =>
      refundAnswer(await refundCharge({ charge, refund_id: newRefundId(), ...body }, services)),
    );
  });
}

export const definition = defineHandler(SERVICE_SETS.merchantApi, createRefund);
export const handler = lambdaHandler(definition);
