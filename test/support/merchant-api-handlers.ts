import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { hashApiKey } from "../../functions/api/api-key";
import { MERCHANT_API_ROUTES } from "../../functions/api/merchant-api-routes";
import { attemptKeyOf } from "../../functions/core/base/order-id";
import { type AnyFunctionSpec, BILLING_FUNCTIONS, functionNamed } from "../../functions/function-table";
import { BillingStack, type BillingStackOptions } from "../../local/stack/billing-stack";
import { TestContainer } from "./handler-env";
import { type ApiCall, apiGateway } from "./merchant-api";

const authorizeMerchant = functionNamed("authorize-merchant");
const getOpenApi = functionNamed("get-openapi");

/** Every merchant API route's function, by the route's operationId: what the deployed API routes to. */
const ROUTED_FUNCTIONS = (BILLING_FUNCTIONS as readonly AnyFunctionSpec[]).flatMap((spec) =>
  spec.trigger.kind === "http" && spec.trigger.api === "merchant"
    ? spec.trigger.routes.flatMap((route) => {
        const documented = MERCHANT_API_ROUTES.find(
          (each) => each.method === route.method && each.path === route.path,
        );
        return documented === undefined ? [] : [[documented.operationId, spec] as const];
      })
    : [],
);

/** API Gateway in front of the merchant API's functions (wrapped handlers) in a container of the test's stack. */
export const deployedMerchantApi = (container: TestContainer) =>
  apiGateway({
    authorizer: container.handler(authorizeMerchant),
    handlers: {
      ...Object.fromEntries(
        ROUTED_FUNCTIONS.map(([operationId, spec]) => [operationId, container.handler(spec)]),
      ),
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
 * A test file's billing stack (started with `options`) with the merchant API as deployed in front of it, called with
 * `apiKey`: started before the file's tests, closed after, the functions' container renewed before each test.
 */
export function merchantApiOnStack(apiKey: string, options: BillingStackOptions = {}) {
  let stack: BillingStack | undefined;
  let apiKeySecretArn = "";
  const current = () => {
    if (stack === undefined) throw new Error("the stack starts in beforeAll");
    return stack;
  };
  const container = new TestContainer(current);
  const api = deployedMerchantApi(container);
  beforeAll(async () => {
    stack = await BillingStack.start(options);
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
    /** The sandbox's sales of a subscription, as [period, amount], in the order made. */
    salesByPeriod: (id: string) =>
      [...current().sandbox.state.payments.payments()]
        .filter(
          (payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id,
        )
        .map((payment) => [attemptKeyOf(payment.orderId)?.period, payment.amount]),
    /** The sales the sandbox holds for a subscription's order_ids. */
    salesOf: (id: string) =>
      [...current().sandbox.state.payments.payments()].filter(
        (payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id,
      ).length,
  };
}
