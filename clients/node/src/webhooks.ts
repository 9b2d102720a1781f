import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

// Verifying our webhooks (the API's README, Webhooks). Endpoints are signed by the Standard Webhooks spec
// (`webhook-id`, `webhook-timestamp`, `webhook-signature`), verified here by the `standardwebhooks` package; endpoints
// registered before it carry `billing-signature: t=…,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the whole secret.

/** A billing event as delivered: its id (de-duplicate on it), type, time and order, and the rest of its facts. */
export interface BillingWebhookEvent {
  readonly event_id: string;
  readonly type: string;
  readonly occurred_at: string;
  readonly sequence?: number;
  readonly subscription_id?: string;
  readonly [fact: string]: unknown;
}

/** Headers as Node's http module or the Fetch API hands them over. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** How far a signature's time may lie from the receiver's clock. */
const TOLERANCE_SECONDS = 300;

/** A delivery that is not ours, altered, or too old (a replay). */
export class WebhookSignatureError extends Error {
  override readonly name = "WebhookSignatureError";
}

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const entries: [string, string][] =
    headers instanceof Headers
      ? [...headers.entries()]
      : Object.entries(headers).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, typeof value === "string" ? value : value.join(", ")]],
        );
  return Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * The event a delivery carries, once its signature is verified over the body exactly as received (before any JSON
 * parsing) with the endpoint's secret and its time found within 5 minutes of this machine's clock (deliveries are
 * signed on the wall clock, local mode's too); throws a WebhookSignatureError otherwise.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
): BillingWebhookEvent {
  const body = typeof rawBody === "string" ? rawBody : rawBody.toString("utf8");
  const given = headerRecord(headers);
  if (given["webhook-signature"] === undefined && given["billing-signature"] !== undefined)
    verifyBillingSignature(given["billing-signature"], body, secret, new Date());
  else {
    try {
      new Webhook(secret).verify(body, given);
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw new WebhookSignatureError(error.message);
      throw error;
    }
  }
  return JSON.parse(body) as BillingWebhookEvent;
}

function verifyBillingSignature(header: string, body: string, secret: string, now: Date): void {
  const fields = header.split(",").map((field) => field.trim().split("="));
  const t = Number(fields.find(([key]) => key === "t")?.[1]);
  const expected = createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest();
  const signed = fields.some(
    ([key, value = ""]) =>
      key === "v1" && /^[0-9a-f]{64}$/.test(value) && timingSafeEqual(Buffer.from(value, "hex"), expected),
  );
  if (!signed) throw new WebhookSignatureError("No matching signature found");
  if (!(Math.abs(now.getTime() / 1000 - t) <= TOLERANCE_SECONDS))
    throw new WebhookSignatureError("the delivery's timestamp is too far from now (a replay?)");
}
