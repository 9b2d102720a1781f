import { adHocChargeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { createChargeBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import { chargeAdHoc } from "../core/charging/ad-hoc-charge";
import type { ChargeDeps } from "../core/charging/charge-engine";

/**
 * POST /v1/subscriptions/{id}/charges: an ad hoc REBILL of the stored token, once per Idempotency-Key (the key's
 * digest is also kept on the ledger line).
 */
export function run(request: HttpRequest, services: ChargeDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, createChargeBody);
    return idempotentPost(request, services, body, async (requestKey) =>
      adHocChargeAnswer(
        await chargeAdHoc({ subscription_id: id, amount: body.amount, request_key: requestKey }, services),
      ),
    );
  });
}
