import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Integrity key of the payment window (README, The real gateway: production settings): hex SHA-256 over
 * `secret + "?" + k1=v1&k2=v2…` with the keys sorted and the values not URL-encoded.
 */
export function computeFgkey(secret: string, params: Readonly<Record<string, string>>): string {
  const canonical = Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join("&");
  return createHash("sha256").update(`${secret}?${canonical}`, "utf8").digest("hex");
}

/** Flattens a nested request into dotted keys (`payment.amount`), the parameter set a ready fgkey covers. */
export function flattenParams(value: unknown, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === null || value === undefined) return out;
  if (typeof value !== "object") {
    out[prefix] = String(value);
    return out;
  }
  for (const [key, child] of Object.entries(value)) {
    Object.assign(out, flattenParams(child, prefix ? `${prefix}.${key}` : key));
  }
  return out;
}

/**
 * Checks a status_url query string: its `fgkey` must equal the key recomputed over every other parameter (values
 * URL-decoded, empty ones included), so any added, removed or altered parameter fails. The gateway writes the key in
 * upper case (README, The real gateway): hex is compared without regard to case.
 */
export function verifyQueryFgkey(secret: string, query: string): boolean {
  const params = new URLSearchParams(query);
  const given = params.get("fgkey");
  if (!given || params.getAll("fgkey").length !== 1) return false;
  // No prototype: keys such as `constructor` or `__proto__` must be plain own entries like any other parameter.
  const rest: Record<string, string> = Object.create(null);
  for (const [key, value] of params) {
    if (key === "fgkey") continue;
    if (key in rest) return false; // a repeated parameter is a change
    rest[key] = value;
  }
  const expected = Buffer.from(computeFgkey(secret, rest), "utf8");
  const actual = Buffer.from(given.toLowerCase(), "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
