import { paidChangeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyServices, idempotentPost } from "../api/idempotency";
import { subscriptionIdParams, updatePaymentMethodBody } from "../api/merchant-api-schemas";
import { maskedCardOf } from "../api/views";
import { defineHandler } from "../composition/handler-definition";
import { lambdaHandler } from "../composition/lambda-entry";
import { SERVICE_SETS } from "../composition/service-sets";
import { type PaymentMethodDeps, updatePaymentMethod } from "../core/payment-method";

/**
 * POST /v1/subscriptions/{id}/payment-method: a new card (non-ui payment). The card lives in this request's memory
 * only: the idempotency record's digest covers the masked card, never the number or CVC.
 */
export function updatePaymentMethodRoute(
  request: HttpRequest,
  services: PaymentMethodDeps & IdempotencyServices,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const body = bodyOf(request, updatePaymentMethodBody);
    return idempotentPost(request, services, { card: maskedCardOf(body.card) }, async (requestKey) =>
      paidChangeAnswer(
        await updatePaymentMethod(
          { subscription_id: id, card: body.card, request_key: requestKey },
          services,
        ),
      ),
    );
  });
}

export const definition = defineHandler(SERVICE_SETS.merchantApi, updatePaymentMethodRoute);
export const handler = lambdaHandler(definition);
