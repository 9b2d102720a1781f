import { DIGIT_RUN, looksLikePan } from "../shared/card-number";
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

const JWT_SHAPED = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** Our webhook endpoints' signing secrets (whsec_ and base64, or base64url), wherever they show up. */
const WEBHOOK_SECRET_SHAPED = /whsec_[A-Za-z0-9_+/=-]+/g;

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
 * Masks registered secret values, card-number-shaped digit runs (keeping the last four), JWT-shaped tokens and
 * webhook signing secrets inside a text.
 */
export function redactText(text: string): string {
  let masked = text;
  for (const value of secretValues) masked = masked.replaceAll(value, REDACTED);
  return masked
    .replace(JWT_SHAPED, "[JWT]")
    .replace(WEBHOOK_SECRET_SHAPED, "[WEBHOOK SECRET]")
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
