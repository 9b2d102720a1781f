// recurring-billing-client: the merchant API of the recurring-billing orchestrator, typed from its OpenAPI document.

export {
  type BillingClient,
  type BillingClientOptions,
  createBillingClient,
  isReplayed,
  ok,
  type paths,
} from "./client.js";
export { BillingApiError, type Decline, type ErrorEnvelope } from "./errors.js";
export type { components, operations } from "./openapi-types.js";
export { type ListItem, type ListParams, type ListPath, listAll } from "./pages.js";
export { IDEMPOTENCY_KEY_HEADER, type RetryOptions } from "./retrying-fetch.js";
export {
  type BillingWebhookEvent,
  verifyWebhook,
  type WebhookHeaders,
  WebhookSignatureError,
} from "./webhooks.js";
