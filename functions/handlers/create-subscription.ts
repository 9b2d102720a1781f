import { signupAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, serve } from "../api/http";
import { type IdempotencyDeps, idempotentPost } from "../api/idempotency";
import { createSubscriptionBody } from "../api/merchant-api-schemas";
import { maskedCardOf } from "../api/views";
import { type SignupDeps, signUpWithCard } from "../core/signup/signup";

/**
 * POST /v1/subscriptions: sign-up with a card (non-ui payment, period 0 charged). The card lives in this request's
 * memory only: the idempotency record's digest covers the masked card, never the number or CVC.
 */
export function run(request: HttpRequest, services: SignupDeps & IdempotencyDeps): Promise<HttpResult> {
  return serve(async () => {
    const body = bodyOf(request, createSubscriptionBody);
    const identity = { ...body, card: maskedCardOf(body.card) };
    return idempotentPost(request, services, identity, async (requestKey) =>
      signupAnswer(await signUpWithCard({ ...body, request_key: requestKey }, services)),
    );
  });
}
