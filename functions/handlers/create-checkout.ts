import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { checkoutAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyServices, idempotentPost } from "../api/idempotency";
import { createCheckoutBody } from "../api/merchant-api-schemas";
import { type CheckoutDeps, startCheckout } from "../core/checkout";
import { observedHandler } from "../runtime/lambda-handler";
import { getMerchantApiServices } from "../runtime/merchant-api-services";

/** POST /v1/checkouts: a payment-window sign-up (ready); 201 with the fgkey. Variables: billingEnvironment. */
export function createCheckout(
  request: HttpRequest,
  services: CheckoutDeps & IdempotencyServices,
): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createCheckoutBody);
    return idempotentPost(request, services, body, async () =>
      checkoutAnswer(await startCheckout(body, services)),
    );
  });
}

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) =>
  createCheckout(event, await getMerchantApiServices()),
);
