import { passesLuhn } from "../shared/luhn";
/** What a masked field's value becomes. */
export const REDACTED = "[REDACTED]";

const normalise = (key: string) => key.toLowerCase().replace(/[-_\s]/g, "");

/** Keys (normalised: lower case, no `-`/`_`) whose value is masked wherever they appear. */
const SENSITIVE_KEYS = new Set([
  "cardnumber",
  "cardno",
  "pan",
  "cvc",
  "cvv",
  "cvc2",
  "cvv2",
  "expirydate",
  "aes",
  "aeskey",
  "aeskeyhex",
  "aesiv",
  "cookie",
  "secretstring",
  "secretbinary",
]);

/** Endings that make a key sensitive: `apiKey`, `partnerApiKey`, `webhookSecret`, `accessToken`, … (`token_id` ends in "id"). */
const SENSITIVE_ENDINGS = [
  "secret",
  "password",
  "passwd",
  "apikey",
  "token",
  "jwt",
  "authorization",
  "privatekey",
  "accesskey",
];

/** Inside a `card` object these name card data too. */
const CARD_KEYS = new Set(["number", "expiry", "expirydate", "expirymonth", "expiryyear", "cvc", "cvv"]);

function isSensitiveKey(key: string, parentKey: string | undefined): boolean {
  const name = normalise(key);
  if (SENSITIVE_KEYS.has(name) || SENSITIVE_ENDINGS.some((ending) => name.endsWith(ending))) return true;
  return parentKey !== undefined && normalise(parentKey).endsWith("card") && CARD_KEYS.has(name);
}

// A whole run of digits (maximal, so a 20-digit id never yields a 16-digit "PAN") with what touches it on each side.
const DIGIT_RUN = /(^|[^0-9])([0-9]{13,})(?=([^0-9]|$))/g;
const JWT_SHAPED = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
const LETTER = /[A-Za-z]/;
// The gateway's yyyyMMddHHmmss stamps are 14 digits; no 14-digit card number starts with 19 or 20.
const TIMESTAMP_14 = /^(19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d[0-5]\d$/;

function looksLikePan(run: string, before: string, after: string | undefined): boolean {
  if (run.length > 19 || !passesLuhn(run) || TIMESTAMP_14.test(run)) return false;
  // Identifiers glue digits to a letter prefix (SBXTK0000000000000000018): those are ids, not card numbers.
  return !LETTER.test(before) && !LETTER.test(after ?? "");
}

/** Whether a text holds a card-number-shaped digit run: what redactText would mask as a PAN. */
export function containsCardNumber(text: string): boolean {
  for (const [, before = "", run = "", after] of text.matchAll(DIGIT_RUN)) {
    if (looksLikePan(run, before, after)) return true;
  }
  return false;
}

/** Shorter values would mask ordinary words; no real credential is this short. */
const MIN_SECRET_LENGTH = 8;
const secretValues = new Set<string>();

/**
 * Registers credentials this process holds (the gateway API key, AES key, partner API key), so that they are
 * masked wherever they show up in a text, not only under a sensitive key. Kept for the life of the process.
 */
export function registerSecretValues(values: readonly (string | undefined)[]): void {
  for (const value of values)
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secretValues.add(value);
}

/**
 * Masks registered secret values, card-number-shaped digit runs (keeping the last four) and JWT-shaped tokens
 * inside a text.
 */
export function redactText(text: string): string {
  let masked = text;
  for (const value of secretValues) masked = masked.replaceAll(value, REDACTED);
  return masked
    .replace(JWT_SHAPED, "[JWT]")
    .replace(DIGIT_RUN, (match, before: string, run: string, after: string | undefined) =>
      looksLikePan(run, before, after) ? `${before}[PAN ****${run.slice(-4)}]` : match,
    );
}

export interface RedactOptions {
  /** How an Error becomes a plain object before it is redacted (the logger passes its own formatter). */
  readonly formatError?: (error: Error) => unknown;
}

function plainError(error: Error): Record<string, unknown> {
  return { ...error, name: error.name, message: error.message, stack: error.stack, cause: error.cause };
}

/**
 * A deep copy of `value` safe to log or return: values under sensitive keys (card data, keys, secrets, tokens —
 * but not `token_id`) become "[REDACTED]"; every string has registered secret values, PAN-shaped digit runs and
 * JWT-shaped tokens masked. Errors become plain objects, cycles become "[Circular]".
 */
export function redact(value: unknown, options: RedactOptions = {}): unknown {
  const formatError = options.formatError ?? plainError;
  const ancestors: object[] = [];
  const visit = (current: unknown, key: string | undefined): unknown => {
    if (typeof current === "string") return redactText(current);
    if (typeof current !== "object" || current === null) return current;
    if (current instanceof Date) return new Date(current.getTime());
    if (ancestors.includes(current)) return "[Circular]";
    ancestors.push(current);
    try {
      if (current instanceof Error) return visit(formatError(current), key);
      if (Array.isArray(current)) return current.map((item) => visit(item, key));
      const copy: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(current)) {
        copy[name] = isSensitiveKey(name, key) && item !== undefined ? REDACTED : visit(item, name);
      }
      return copy;
    } finally {
      ancestors.pop();
    }
  };
  return visit(value, undefined);
}
