import { paidChangeAnswer, paymentMethodWindowAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { subscriptionIdParams, updatePaymentMethodBody } from "../api/merchant-api-schemas";
import { maskedCardOf } from "../api/views";
import { updatePaymentMethod } from "../core/lifecycle/payment-method";
import {
  type PaymentMethodWindowDeps,
  startPaymentMethodWindow,
} from "../core/lifecycle/payment-method-window";

/**
 * POST /v1/subscriptions/{id}/payment-method: a new card (non-ui payment), or a payment window for the customer to
 * type it in. The card lives in this request's memory only: the idempotency record's digest covers the masked card,
 * never the number or CVC.
 */
export function run(
  request: HttpRequest,
  services: PaymentMethodWindowDeps & IdempotencyDeps,
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const { card, window } = bodyOf(request, updatePaymentMethodBody);
    if (card === undefined)
      return idempotentPost(request, services, { window }, async () =>
        paymentMethodWindowAnswer(
          await startPaymentMethodWindow({ subscription_id: id, ...window }, services),
        ),
      );
    return idempotentPost(request, services, { card: maskedCardOf(card) }, async (requestKey) =>
      paidChangeAnswer(
        await updatePaymentMethod({ subscription_id: id, card, request_key: requestKey }, services),
      ),
    );
  });
}
