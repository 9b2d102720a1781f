import { hashApiKey } from "../../functions/api/api-key";
import { handler as adjustSubscription } from "../../functions/handlers/adjust-subscription";
import { handler as authorizeMerchant } from "../../functions/handlers/authorize-merchant";
import { handler as cancelSubscription } from "../../functions/handlers/cancel-subscription";
import { handler as createCharge } from "../../functions/handlers/create-charge";
import { handler as createCheckout } from "../../functions/handlers/create-checkout";
import { handler as createRefund } from "../../functions/handlers/create-refund";
import { handler as createSubscription } from "../../functions/handlers/create-subscription";
import { handler as getOpenApi } from "../../functions/handlers/get-openapi";
import { handler as getSubscription } from "../../functions/handlers/get-subscription";
import { handler as listCharges } from "../../functions/handlers/list-charges";
import { resetMerchantApiServices } from "../../functions/runtime/merchant-api-services";
import type { BillingStack } from "../../local/billing-stack";
import { useLambdaEnvironment } from "./handler-env";
import { apiGateway } from "./merchant-api";

/** API Gateway in front of the merchant API's Lambda entry points (wrapped handlers, services from the environment). */
export const deployedMerchantApi = () =>
  apiGateway({
    authorizer: authorizeMerchant,
    handlers: {
      createCheckout,
      createSubscription,
      getSubscription,
      adjustSubscription,
      cancelSubscription,
      createCharge,
      listCharges,
      createRefund,
      getOpenApi,
    },
  });

/** A merchant API function's environment on a stack, with the API key digests' secret; forgets services built before. */
export function useMerchantApiEnvironment(stack: BillingStack, apiKeySecretArn: string): void {
  resetMerchantApiServices();
  useLambdaEnvironment({ ...stack.environment(), MERCHANT_API_KEY_HASH_SECRET_ARN: apiKeySecretArn });
}

/** Stores the digest of `apiKey` in the stack's Secrets Manager; returns the secret's ARN. */
export function storeApiKeyDigest(stack: BillingStack, apiKey: string): string {
  return stack.secretsManager.setSecret(
    "billing/merchant-api-keys",
    JSON.stringify({ sha256: [hashApiKey(apiKey)] }),
  );
}
