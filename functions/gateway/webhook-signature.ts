import { createHmac, timingSafeEqual } from "node:crypto";
import type { ResultEnvelope } from "./schemas/primitives";

/**
 * Webhook signatures of the gateway (seed 001 "Signature check"; README, The real gateway: production settings):
 * Base64 HMAC-SHA256 over the raw body, sent in `{prefix}-webhook-signature`, with the send time in
 * `{prefix}-webhook-transmission-time`. The real gateway's prefix is `eximbay` (README, The real gateway); the seed
 * writes `service`. The configured prefix is looked for first, then any other prefix that sent a signature: the HMAC,
 * not the header's name, is what proves the sender.
 *
 * The signature covers only the body, not the transmission time, so the time check is a freshness check against
 * clock-skewed or lazily replayed deliveries, not replay protection: a captured delivery can be re-sent with a new
 * time header. Replays (and the gateway's own hourly re-sends) are absorbed by de-duplicating on the event itself.
 */

export const DEFAULT_WEBHOOK_HEADER_PREFIX = "eximbay";
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** Header values as Node (`IncomingHttpHeaders`) and API Gateway (`headers` / `multiValueHeaders`) hand them over. */
export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export type WebhookRejection =
  | "missing_signature"
  | "missing_timestamp"
  | "bad_timestamp"
  | "stale"
  | "signature_mismatch";

export type WebhookVerification =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: WebhookRejection };

export interface VerifyWebhookInput {
  /** The body exactly as received, before any JSON parsing. */
  readonly rawBody: string | Buffer;
  readonly headers: WebhookHeaders;
  /** Every secret currently accepted (current and next during a rotation); at least one. */
  readonly secrets: readonly string[];
  readonly now: Date;
  readonly toleranceSeconds?: number;
  readonly headerPrefix?: string;
}

export function webhookHeaderNames(headerPrefix = DEFAULT_WEBHOOK_HEADER_PREFIX) {
  const prefix = headerPrefix.toLowerCase();
  return {
    signature: `${prefix}-webhook-signature`,
    transmissionTime: `${prefix}-webhook-transmission-time`,
  } as const;
}

function hmac(rawBody: string | Buffer, secret: string): Buffer {
  return createHmac("sha256", secret).update(rawBody).digest();
}

/** The value of the signature header for this body. */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return hmac(rawBody, secret).toString("base64");
}

const SIGNATURE_HEADER_SUFFIX = "-webhook-signature";

/**
 * The prefix whose headers to read: the configured one when it sent a signature, else the first (in sorted order)
 * other prefix that did, else the configured one (which then reads as missing).
 */
function presentPrefix(headers: WebhookHeaders, configured: string): string {
  const sent = Object.keys(headers)
    .map((key) => key.toLowerCase())
    .filter((key) => key.endsWith(SIGNATURE_HEADER_SUFFIX) && key.length > SIGNATURE_HEADER_SUFFIX.length)
    .map((key) => key.slice(0, -SIGNATURE_HEADER_SUFFIX.length))
    .sort();
  return sent.includes(configured) ? configured : (sent[0] ?? configured);
}

/** Distinct non-blank values of a header, whatever the case of its name and however many times it was sent. */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  const values = new Set<string>();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    for (const item of typeof value === "string" ? [value] : value) {
      const trimmed = item.trim();
      if (trimmed !== "") values.add(trimmed);
    }
  }
  return [...values];
}

const TRANSMISSION_TIME =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)\.(\d{3})(?:Z|([+-])(0\d|1[0-8]):([0-5]\d))$/;

/** Strict `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`; undefined for anything else, including impossible dates (02-30). */
export function parseTransmissionTime(value: string): Date | undefined {
  const match = TRANSMISSION_TIME.exec(value);
  if (!match) return undefined;
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0] = match
    .slice(1, 8)
    .map(Number);
  const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  // Date.UTC rolls 02-30 over to 03-02; a changed day means the date does not exist.
  if (local.getUTCDate() !== day) return undefined;
  const sign = match[8] === "-" ? -1 : 1;
  const offsetMinutes = sign * (Number(match[9] ?? 0) * 60 + Number(match[10] ?? 0));
  return new Date(local.getTime() - offsetMinutes * 60_000);
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** Formats `date` as `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in the zone `offsetMinutes` east of UTC (`Z` for 0). */
export function formatTransmissionTime(date: Date, offsetMinutes = 0): string {
  if (Number.isNaN(date.getTime())) throw new RangeError("transmission time must be a valid date");
  if (!Number.isInteger(offsetMinutes) || Math.abs(offsetMinutes) > 18 * 60) {
    throw new RangeError("offset must be whole minutes within ±18 hours");
  }
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const abs = Math.abs(offsetMinutes);
  const offset =
    offsetMinutes === 0
      ? "Z"
      : `${offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `.${pad(local.getUTCMilliseconds(), 3)}${offset}`
  );
}

/** Decodes canonical Base64 of a SHA-256 MAC; anything else cannot match and is rejected without comparing. */
function decodeSignature(value: string): Buffer | undefined {
  const bytes = Buffer.from(value, "base64");
  return bytes.length === 32 && bytes.toString("base64") === value ? bytes : undefined;
}

/** True when `given` is the MAC of the body under any secret; every secret is compared, in constant time each. */
function matchesAnySecret(rawBody: string | Buffer, given: Buffer, secrets: readonly string[]): boolean {
  let matched = false;
  for (const secret of secrets) {
    // Non-short-circuiting `||`: how long this takes does not depend on which secret matched.
    matched = timingSafeEqual(hmac(rawBody, secret), given) || matched;
  }
  return matched;
}

/**
 * Checks a delivery: both headers present, the transmission time well formed and within ±toleranceSeconds of
 * `now`, and the signature equal to the MAC of the raw body under one of `secrets`. Throws only for a
 * misconfiguration (no secret, an empty secret, a negative tolerance).
 */
export function verifyWebhook({
  rawBody,
  headers,
  secrets,
  now,
  toleranceSeconds = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  headerPrefix = DEFAULT_WEBHOOK_HEADER_PREFIX,
}: VerifyWebhookInput): WebhookVerification {
  if (secrets.length === 0 || secrets.some((secret) => secret === "")) {
    throw new Error("webhook verification needs at least one non-empty secret");
  }
  if (!(toleranceSeconds >= 0)) throw new RangeError("toleranceSeconds must not be negative");
  const names = webhookHeaderNames(presentPrefix(headers, headerPrefix.toLowerCase()));
  const signatures = headerValues(headers, names.signature);
  const times = headerValues(headers, names.transmissionTime);
  if (signatures.length === 0) return { ok: false, reason: "missing_signature" };
  if (times.length === 0) return { ok: false, reason: "missing_timestamp" };
  // Two different values of one header cannot both be the sender's: treat them as malformed.
  const sentAt = times.length === 1 && times[0] !== undefined ? parseTransmissionTime(times[0]) : undefined;
  if (!sentAt) return { ok: false, reason: "bad_timestamp" };
  if (Math.abs(now.getTime() - sentAt.getTime()) > toleranceSeconds * 1000)
    return { ok: false, reason: "stale" };
  const given =
    signatures.length === 1 && signatures[0] !== undefined ? decodeSignature(signatures[0]) : undefined;
  if (!given || !matchesAnySecret(rawBody, given, secrets))
    return { ok: false, reason: "signature_mismatch" };
  return { ok: true };
}

/** The reply that stops the gateway's re-sends (seed 001). A fresh object each call. */
export function webhookAckReply(): ResultEnvelope {
  return { rescode: "0000", resmsg: "Success" };
}

/** The seed's reply to a delivery whose signature does not match. A fresh object each call. */
export function webhookSignatureFailReply(): ResultEnvelope {
  return { rescode: "XXXX", resmsg: "signature_fail" };
}
