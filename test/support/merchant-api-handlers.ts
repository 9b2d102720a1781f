import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { hashApiKey } from "../../functions/api/api-key";
import { attemptKeyOf } from "../../functions/core/order-id";
import { definition as adjustSubscription } from "../../functions/handlers/adjust-subscription";
import { definition as authorizeMerchant } from "../../functions/handlers/authorize-merchant";
import { definition as cancelSubscription } from "../../functions/handlers/cancel-subscription";
import { definition as createCharge } from "../../functions/handlers/create-charge";
import { definition as createCheckout } from "../../functions/handlers/create-checkout";
import { definition as createRefund } from "../../functions/handlers/create-refund";
import { definition as createSubscription } from "../../functions/handlers/create-subscription";
import { definition as getOpenApi } from "../../functions/handlers/get-openapi";
import { definition as getReceipt } from "../../functions/handlers/get-receipt";
import { definition as getSubscription } from "../../functions/handlers/get-subscription";
import { definition as listCharges } from "../../functions/handlers/list-charges";
import { definition as listSubscriptions } from "../../functions/handlers/list-subscriptions";
import { definition as pauseSubscription } from "../../functions/handlers/pause-subscription";
import { definition as resumeSubscription } from "../../functions/handlers/resume-subscription";
import { definition as updatePaymentMethod } from "../../functions/handlers/update-payment-method";
import { definition as updateSubscription } from "../../functions/handlers/update-subscription";
import { BillingStack } from "../../local/billing-stack";
import { TestContainer } from "./handler-env";
import { type ApiCall, apiGateway } from "./merchant-api";

/** API Gateway in front of the merchant API's functions (wrapped handlers) in a container of the test's stack. */
export const deployedMerchantApi = (container: TestContainer) =>
  apiGateway({
    authorizer: container.handler(authorizeMerchant),
    handlers: {
      createCheckout: container.handler(createCheckout),
      createSubscription: container.handler(createSubscription),
      listSubscriptions: container.handler(listSubscriptions),
      getSubscription: container.handler(getSubscription),
      updateSubscription: container.handler(updateSubscription),
      adjustSubscription: container.handler(adjustSubscription),
      updatePaymentMethod: container.handler(updatePaymentMethod),
      pauseSubscription: container.handler(pauseSubscription),
      resumeSubscription: container.handler(resumeSubscription),
      cancelSubscription: container.handler(cancelSubscription),
      createCharge: container.handler(createCharge),
      listCharges: container.handler(listCharges),
      getReceipt: container.handler(getReceipt),
      createRefund: container.handler(createRefund),
      getOpenApi: container.handler(getOpenApi),
    },
  });

/** A new container of the merchant API's functions, with the API key digests' secret. */
export function renewMerchantApi(container: TestContainer, apiKeySecretArn: string): void {
  container.renew({ MERCHANT_API_KEY_HASH_SECRET_ARN: apiKeySecretArn });
}

/** Stores the digest of `apiKey` in the stack's Secrets Manager; returns the secret's ARN. */
export function storeApiKeyDigest(stack: BillingStack, apiKey: string): string {
  return stack.secretsManager.setSecret(
    "billing/merchant-api-keys",
    JSON.stringify({ sha256: [hashApiKey(apiKey)] }),
  );
}

/**
 * A test file's billing stack with the merchant API as deployed in front of it, called with `apiKey`: started before
 * the file's tests, closed after, the functions' container renewed before each test.
 */
export function merchantApiOnStack(apiKey: string) {
  let stack: BillingStack | undefined;
  let apiKeySecretArn = "";
  const current = () => {
    if (stack === undefined) throw new Error("the stack starts in beforeAll");
    return stack;
  };
  const container = new TestContainer(current);
  const api = deployedMerchantApi(container);
  beforeAll(async () => {
    stack = await BillingStack.start();
    apiKeySecretArn = storeApiKeyDigest(stack, apiKey);
  });
  afterAll(() => stack?.close());
  beforeEach(() => renewMerchantApi(container, apiKeySecretArn));
  const call = (method: string, path: string, options: ApiCall = {}) =>
    api(method, path, { apiKey, ...options });
  return {
    stack: current,
    /** The API as a caller without a key (or with another) meets it. */
    api,
    call,
    /** A monthly USD 19.90 card sign-up (201 expected): the subscription's view as answered. */
    signUp: async (billing: "token" | "recurring" = "token", cardNumber = "4111111111111111") => {
      const answer = await call("POST", "/v1/subscriptions", {
        body: {
          customer: { name: "Ada Lovelace", email: "ada@example.com", external_id: "acct_42" },
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          billing,
          card: { number: cardNumber, expiry: "203012", cvc: "123" },
        },
      });
      expect(answer.status).toBe(201);
      return answer.json;
    },
    /** The sales the sandbox holds for a subscription's order_ids. */
    salesOf: (id: string) =>
      [...current().sandbox.state.payments.payments()].filter(
        (payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id,
      ).length,
  };
}
