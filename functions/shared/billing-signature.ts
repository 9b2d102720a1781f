import { createHmac, timingSafeEqual } from "node:crypto";

// The signature of our webhooks to the SaaS (README, Webhooks), Stripe's scheme: the header
// `billing-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the endpoint's secret>`.
// The receiver recomputes it over the raw body, compares in constant time and refuses a stale `t` (replays).

export const SIGNATURE_HEADER = "billing-signature";
export const EVENT_ID_HEADER = "billing-event-id";
export const EVENT_TYPE_HEADER = "billing-event-type";
/** How far a receiver should let `t` lie from its own clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const hmacHex = (secret: string, payload: string) =>
  createHmac("sha256", secret).update(payload, "utf8").digest("hex");

/** The header's value for `body` signed at `at`. */
export function signBody(body: string, secret: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${hmacHex(secret, `${t}.${body}`)}`;
}

export type SignatureCheck = "valid" | "malformed" | "mismatch" | "stale";

/**
 * What a receiver does (and the README shows): the header read, the HMAC of "<t>.<raw body>" compared in constant
 * time with every v1 (a secret being rolled may sign twice), and t within the tolerance of `now`.
 */
export function verifySignature(
  header: string | undefined,
  body: string,
  secret: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  const parts = (header ?? "").split(",").map((part) => part.trim().split("="));
  const t = Number(parts.find(([key]) => key === "t")?.[1]);
  const signatures = parts.filter(([key, value]) => key === "v1" && value !== undefined).map(([, v]) => v);
  if (!Number.isInteger(t) || signatures.length === 0) return "malformed";
  const expected = Buffer.from(hmacHex(secret, `${t}.${body}`), "hex");
  const matches = signatures.some((signature = "") => {
    const given = Buffer.from(signature, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return "mismatch";
  return Math.abs(now.getTime() / 1000 - t) > toleranceSeconds ? "stale" : "valid";
}
