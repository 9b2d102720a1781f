import { createHmac } from "node:crypto";

// The signature of our webhooks to the SaaS (README, Webhooks) by the Standard Webhooks spec
// (https://www.standardwebhooks.com), which maintained libraries verify in many languages (`standardwebhooks`,
// `svix` on npm): the headers `webhook-id` (the event's id, the same on every retry), `webhook-timestamp` (unix
// seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, keyed with the bytes
// the secret `whsec_<base64>` encodes. Endpoints registered before it are signed with billing-signature.ts instead.

export const WEBHOOK_ID_HEADER = "webhook-id";
const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
const STANDARD_SECRET_PREFIX = "whsec_";

/** The key a `whsec_<base64>` secret encodes. */
const keyOf = (secret: string) => Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), "base64");

/** The three headers that sign `body` as the message `id` at `at`. */
export function standardWebhookHeaders(
  id: string,
  body: string,
  secret: string,
  at: Date,
): Readonly<Record<string, string>> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = createHmac("sha256", keyOf(secret))
    .update(`${id}.${timestamp}.${body}`, "utf8")
    .digest("base64");
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: `v1,${signature}`,
  };
}
