import { createHash, timingSafeEqual } from "node:crypto";
import * as z from "zod";
import { lazySchema } from "../shared/lazy-schema";

// The merchant API key check (README, Merchant API), shared by the Lambda authorizer and local mode. Only SHA-256
// digests of the keys are kept (in Secrets Manager): a key is a long random token, so an unsalted fast hash cannot be
// reversed and costs nothing per request, where a password hash (scrypt) would cost ~50 ms of CPU on every call.

const sha256Hex = lazySchema(() =>
  z.string().regex(/^[0-9a-f]{64}$/, "must be a lower-case hex SHA-256 digest"),
);

/**
 * The secret's JSON: {"sha256": "<hex>"} or {"sha256": ["<hex>", …]}. Several digests let a key be rotated without
 * downtime: add the new key's digest, move the clients, remove the old one.
 */
export const apiKeyHashesSecretSchema = lazySchema(() =>
  z
    .strictObject({ sha256: z.union([sha256Hex, z.array(sha256Hex).min(1).max(10)]) })
    .transform(({ sha256 }) => (typeof sha256 === "string" ? [sha256] : sha256)),
);

/** The digest to store for an API key. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** RFC 6750 b64token, within sane lengths. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{16,512}=*)$/i;

export type ApiKeyCheck = "ok" | "missing" | "malformed" | "wrong";

/**
 * Checks an Authorization header against the stored digests. Every digest is compared, in constant time, whatever
 * matched before: the time taken tells nothing about which digest or how much of it matched.
 */
export function checkAuthorization(header: string | undefined, digests: readonly string[]): ApiKeyCheck {
  if (header === undefined || header.trim() === "") return "missing";
  const key = BEARER.exec(header.trim())?.[1];
  if (key === undefined) return "malformed";
  const presented = createHash("sha256").update(key, "utf8").digest();
  let matched = false;
  for (const digest of digests) {
    matched = timingSafeEqual(presented, Buffer.from(digest, "hex")) || matched;
  }
  return matched ? "ok" : "wrong";
}
