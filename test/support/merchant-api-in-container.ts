import type { TestContainer } from "./handler-env";
import type { ApiCall } from "./merchant-api";
import { deployedMerchantApi, renewMerchantApi, storeApiKeyDigest } from "./merchant-api-handlers";

/**
 * The merchant API as deployed (the authorizer, then the route's handler) in a container of a stack the test
 * file starts itself, with options merchantApiOnStack does not take (a start date, a webhook base URL),
 * called with `apiKey`.
 */
export function merchantApiIn(container: TestContainer, apiKey: string) {
  const api = deployedMerchantApi(container);
  return {
    /** Once the stack is up: stores the key's digest there and starts a new container that reads it. */
    open: () => renewMerchantApi(container, storeApiKeyDigest(container.stack, apiKey)),
    call: (method: string, path: string, options: ApiCall = {}) => api(method, path, { apiKey, ...options }),
  };
}
