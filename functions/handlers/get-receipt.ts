import { receiptAnswer } from "../api/answers";
import { notFound } from "../api/errors";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { chargeIdParams } from "../api/merchant-api-schemas";
import { attemptKeyOf } from "../core/base/order-id";
import type { ReceiptDeps } from "../core/charging/receipts";
import { receiptOf } from "../core/charging/receipts";

/** GET /v1/charges/{id}/receipt: the gateway's receipt page of the charge's transaction. */
export function run(request: HttpRequest, services: ReceiptDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, chargeIdParams);
    const charge = attemptKeyOf(id);
    if (!charge) throw notFound("charge");
    return receiptAnswer(id, await receiptOf(charge, services));
  });
}
