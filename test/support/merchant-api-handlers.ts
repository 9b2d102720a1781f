import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { hashApiKey } from "../../functions/api/api-key";
import { attemptKeyOf } from "../../functions/core/base/order-id";
import { functionNamed } from "../../functions/function-table";
import { BillingStack } from "../../local/stack/billing-stack";
import { TestContainer } from "./handler-env";
import { type ApiCall, apiGateway } from "./merchant-api";

const adjustSubscription = functionNamed("adjust-subscription");
const authorizeMerchant = functionNamed("authorize-merchant");
const cancelSubscription = functionNamed("cancel-subscription");
const createCharge = functionNamed("create-charge");
const createCheckout = functionNamed("create-checkout");
const createPortalSession = functionNamed("create-portal-session");
const createRefund = functionNamed("create-refund");
const createSubscription = functionNamed("create-subscription");
const getOpenApi = functionNamed("get-openapi");
const getReceipt = functionNamed("get-receipt");
const getSubscription = functionNamed("get-subscription");
const listCharges = functionNamed("list-charges");
const listSubscriptions = functionNamed("list-subscriptions");
const pauseSubscription = functionNamed("pause-subscription");
const resumeSubscription = functionNamed("resume-subscription");
const updatePaymentMethod = functionNamed("update-payment-method");
const updateSubscription = functionNamed("update-subscription");
const createWebhookEndpoint = functionNamed("create-webhook-endpoint");
const listWebhookEndpoints = functionNamed("list-webhook-endpoints");
const deleteWebhookEndpoint = functionNamed("delete-webhook-endpoint");
const listWebhookDeliveries = functionNamed("list-webhook-deliveries");

/** API Gateway in front of the merchant API's functions (wrapped handlers) in a container of the test's stack. */
export const deployedMerchantApi = (container: TestContainer) =>
  apiGateway({
    authorizer: container.handler(authorizeMerchant),
    handlers: {
      createCheckout: container.handler(createCheckout),
      createPortalSession: container.handler(createPortalSession),
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
      createWebhookEndpoint: container.handler(createWebhookEndpoint),
      listWebhookEndpoints: container.handler(listWebhookEndpoints),
      deleteWebhookEndpoint: container.handler(deleteWebhookEndpoint),
      listWebhookDeliveries: container.handler(listWebhookDeliveries),
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
