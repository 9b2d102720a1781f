import { createDecipheriv, createHash, createHmac, timingSafeEqual } from "node:crypto";

// The gateway's cryptography as the sandbox implements it from the documents and the real gateway's published
// behaviour (README, The gateway sandbox), on its own: card fields decrypted with AES-256-CBC, the fgkey of windows
// and results, and the HMAC of webhooks.

/** The documented IV of card-field encryption: 16 ASCII bytes. */
const CARD_FIELD_IV = "Eximbay_AES_256_";

/**
 * The merchant key's 32 bytes: 64 hex characters, or a 32-character key taken as its own bytes (the form the
 * gateway hands out is not published; both are seen). Undefined for anything else.
 */
function merchantKeyBytes(key: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(key)) return Buffer.from(key, "hex");
  const bytes = Buffer.from(key, "utf8");
  return key.length === 32 && bytes.length === 32 ? bytes : undefined;
}

/** Decrypts a Base64 card field; undefined when it is not ciphertext under this key (the gateway answers HE0x). */
export function decryptCardField(ciphertext: string, key: string, iv = CARD_FIELD_IV): string | undefined {
  const keyBytes = merchantKeyBytes(key);
  if (keyBytes === undefined) throw new Error("the merchant's AES key has neither accepted form");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(ciphertext) || ciphertext.length % 4 !== 0) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-cbc", keyBytes, Buffer.from(iv, "ascii"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return undefined;
  }
}

/**
 * The fgkey over a parameter set: SHA-256 of `secret + "?" + k=v&…` with the keys sorted and the values as they are
 * (not URL-encoded), in upper-case hex as the gateway writes it.
 */
export function fgkeyOf(secret: string, params: Readonly<Record<string, string>>): string {
  const canonical = Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join("&");
  return createHash("sha256").update(`${secret}?${canonical}`, "utf8").digest("hex").toUpperCase();
}

/** A nested request as the dotted parameters a window's fgkey covers (`payment.amount`). */
export function dottedParams(value: unknown, prefix = ""): Record<string, string> {
  if (value === null || value === undefined) return {};
  if (typeof value !== "object") return { [prefix]: String(value) };
  const out: Record<string, string> = {};
  for (const [key, child] of Object.entries(value)) {
    Object.assign(out, dottedParams(child, prefix ? `${prefix}.${key}` : key));
  }
  return out;
}

/**
 * Whether a result query string carries the fgkey of all its other parameters (URL-decoded, empty ones included):
 * any parameter added, removed, repeated or changed fails. Hex case does not matter.
 */
export function carriesValidFgkey(secret: string, query: string): boolean {
  const params = new URLSearchParams(query);
  const given = params.getAll("fgkey");
  if (given.length !== 1 || !given[0]) return false;
  // No prototype: keys such as `constructor` or `__proto__` are plain entries like any other parameter.
  const rest: Record<string, string> = Object.create(null);
  for (const [key, value] of params) {
    if (key === "fgkey") continue;
    if (key in rest) return false;
    rest[key] = value;
  }
  const expected = Buffer.from(fgkeyOf(secret, rest), "utf8");
  const actual = Buffer.from(given[0].toUpperCase(), "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The webhook signature header's value: Base64 HMAC-SHA256 of the raw body under the merchant's webhook secret. */
export function webhookSignature(rawBody: string, secret: string): string {
  return createHmac("sha256", secret).update(rawBody, "utf8").digest("base64");
}

/** The card-number check digit (Luhn, mod 10). */
export function passesCheckDigit(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}
