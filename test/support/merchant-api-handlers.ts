import { hashApiKey } from "../../functions/api/api-key";
import { definition as adjustSubscription } from "../../functions/handlers/adjust-subscription";
import { definition as authorizeMerchant } from "../../functions/handlers/authorize-merchant";
import { definition as cancelSubscription } from "../../functions/handlers/cancel-subscription";
import { definition as createCharge } from "../../functions/handlers/create-charge";
import { definition as createCheckout } from "../../functions/handlers/create-checkout";
import { definition as createRefund } from "../../functions/handlers/create-refund";
import { definition as createSubscription } from "../../functions/handlers/create-subscription";
import { definition as getOpenApi } from "../../functions/handlers/get-openapi";
import { definition as getSubscription } from "../../functions/handlers/get-subscription";
import { definition as listCharges } from "../../functions/handlers/list-charges";
import type { BillingStack } from "../../local/billing-stack";
import type { TestContainer } from "./handler-env";
import { apiGateway } from "./merchant-api";

/** API Gateway in front of the merchant API's functions (wrapped handlers) in a container of the test's stack. */
export const deployedMerchantApi = (container: TestContainer) =>
  apiGateway({
    authorizer: container.handler(authorizeMerchant),
    handlers: {
      createCheckout: container.handler(createCheckout),
      createSubscription: container.handler(createSubscription),
      getSubscription: container.handler(getSubscription),
      adjustSubscription: container.handler(adjustSubscription),
      cancelSubscription: container.handler(cancelSubscription),
      createCharge: container.handler(createCharge),
      listCharges: container.handler(listCharges),
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
