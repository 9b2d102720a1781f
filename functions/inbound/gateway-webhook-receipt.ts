import { createHash } from "node:crypto";
import type { OnceRecords } from "../core/ports/billing-repository";
import type { Clock } from "../core/ports/clock";
import type { IntakeQueue } from "../core/ports/intake-messages";
import type { ResultEnvelope } from "../gateway/schemas/primitives";
import {
  verifyWebhook,
  type WebhookHeaders,
  type WebhookRejection,
  webhookAckReply,
  webhookSignatureFailReply,
} from "../gateway/webhook-signature";
import { gatewayWebhookIntake } from "./gateway-notices";

/**
 * How long a delivery is remembered: far beyond the gateway's 3 hourly re-sends, so every re-send and replay within
 * it is answered without being queued again. A replay after that (with a fresh transmission-time header, which the
 * signature does not cover) is queued once more and absorbed by the processor, which marks a chargeback once.
 */
export const WEBHOOK_DEDUP_TTL_MS = 7 * 24 * 60 * 60_000;

export interface GatewayWebhookDeps {
  readonly repository: OnceRecords;
  readonly queue: IntakeQueue;
  readonly clock: Clock;
  /** Every accepted secret: the current one and, during a rotation, the next. */
  readonly secrets: () => Promise<readonly string[]>;
  readonly headerPrefix?: string;
}

export interface WebhookDelivery {
  /** The body exactly as received (the signature is over these bytes). */
  readonly rawBody: Buffer;
  readonly headers: WebhookHeaders;
}

/** What a delivery came to; `reply` is the documented answer to send back. */
export type WebhookReceipt =
  | { readonly kind: "accepted"; readonly reply: ResultEnvelope }
  /** Seen before (a re-send or a replay): acknowledged so the gateway stops, nothing queued. */
  | { readonly kind: "duplicate"; readonly reply: ResultEnvelope }
  /** Signature missing or wrong, or transmission time outside the window: nothing changes, nothing queued. */
  | { readonly kind: "rejected"; readonly reply: ResultEnvelope; readonly reason: WebhookRejection }
  /** Signed by the gateway but unreadable: acknowledged (a re-send would not read better); a human must look. */
  | { readonly kind: "unreadable"; readonly reply: ResultEnvelope; readonly reason: string };

/** The de-duplication key of a delivery: its body's digest (re-sends carry the same body and signature). */
export function webhookDedupKey(rawBody: Buffer): string {
  return `gateway-webhook:${createHash("sha256").update(rawBody).digest("hex")}`;
}

/**
 * The gateway webhook receiver (README, Merchant API: the webhook routes): HMAC over the raw body with any accepted
 * secret and the ±300 s transmission-time window first; then de-duplication; then the hand-over to the intake queue.
 * A failed hand-over forgets the delivery again and throws, so the gateway's next re-send is taken.
 */
export async function receiveGatewayWebhook(
  delivery: WebhookDelivery,
  deps: GatewayWebhookDeps,
): Promise<WebhookReceipt> {
  const now = deps.clock.now();
  const verification = verifyWebhook({
    rawBody: delivery.rawBody,
    headers: delivery.headers,
    secrets: await deps.secrets(),
    now,
    headerPrefix: deps.headerPrefix,
  });
  if (!verification.ok) {
    return { kind: "rejected", reply: webhookSignatureFailReply(), reason: verification.reason };
  }
  const intake = gatewayWebhookIntake(delivery.rawBody.toString("utf8"), now);
  if (!intake.ok) return { kind: "unreadable", reply: webhookAckReply(), reason: intake.reason };
  const key = webhookDedupKey(delivery.rawBody);
  const first = await deps.repository.recordOnce(key, new Date(now.getTime() + WEBHOOK_DEDUP_TTL_MS));
  if (!first) return { kind: "duplicate", reply: webhookAckReply() };
  try {
    await deps.queue.send(intake.message);
  } catch (error) {
    await deps.repository.forgetOnce(key);
    throw error;
  }
  return { kind: "accepted", reply: webhookAckReply() };
}
