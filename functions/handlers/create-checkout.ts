import { checkoutAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { createCheckoutBody } from "../api/merchant-api-schemas";
import { type CheckoutDeps, startCheckout } from "../core/lifecycle/checkout";
import { langOf } from "../pages/shared/page-text";

/** POST /v1/checkouts: a payment-window sign-up (ready); 201 with the fgkey and our hosted page's link. */
export function run(
  request: HttpRequest,
  services: CheckoutDeps &
    IdempotencyDeps & {
      readonly checkoutPageUrl: (subscriptionId: string, expiresAt: string) => string;
    },
): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createCheckoutBody);
    // The checkout's language is the customer's, for mails, unless the customer's own was given.
    const customer = { ...body.customer, lang: body.customer.lang ?? langOf(body.lang) };
    return idempotentPost(request, services, body, async () =>
      checkoutAnswer(await startCheckout({ ...body, customer }, services), services.checkoutPageUrl),
    );
  });
}
