/**
 * Amounts are decimal strings as on the gateway's wire. Arithmetic is exact: in integer cents (hundredths), which the
 * gateway's limit keeps far inside the safe integers, and in bigint where a product could leave them (proration).
 */

/**
 * The gateway's amount field (the spec's recurring_amount, adjust_amount): 10 digits in total with 2 decimals, so at
 * most 8 before the point. No amount above it is ever sent.
 */
export const MAX_AMOUNT_CENTS = 9_999_999_999;
/** At most 2 decimals on the wire, whatever the currency's minor unit. */
const WIRE_DECIMALS = 2;
const AMOUNT_FORMAT = /^(0|[1-9]\d{0,7})(?:\.(\d{1,2}))?$/;

export function toCents(amount: string): number {
  const match = AMOUNT_FORMAT.exec(amount);
  if (!match?.[1])
    throw new RangeError("amount must be a decimal string of at most 10 digits, 2 after the point");
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/** Cents as the amount string of `currency`, with its decimals on the wire: "3.00" in USD, "1000" in KRW. */
export function fromCents(cents: number, currency: string): string {
  if (!Number.isSafeInteger(cents) || cents < 0 || cents > MAX_AMOUNT_CENTS)
    throw new RangeError("cents must be a whole number from 0 to the gateway's limit");
  const decimals = wireDecimals(currency);
  const whole = Math.floor(cents / 100);
  if (decimals === 0) return String(whole);
  const fraction = String(cents % 100).padStart(2, "0");
  return `${whole}.${fraction.slice(0, decimals)}`;
}

/** A signed amount as the gateway's reports write it ("-5.00", "19.9") in hundredths; sums of them may pass the limit. */
export const signedCents = (amount: string): number => Math.round(Number(amount) * 100);

/** Signed hundredths as an amount of `currency`: "-5.00" in USD, "1000" in KRW; any size a report sums to. */
export function signedAmount(cents: number, currency: string): string {
  const decimals = wireDecimals(currency);
  const magnitude = Math.abs(cents);
  const whole = Math.floor(magnitude / 100);
  const sign = cents < 0 ? "-" : "";
  if (decimals === 0) return `${sign}${whole}`;
  return `${sign}${whole}.${String(magnitude % 100)
    .padStart(2, "0")
    .slice(0, decimals)}`;
}

/** A sum of hundredths, possibly fractional (a monthly share of a yearly plan), rounded half up to the minor unit. */
export function roundedAmount(cents: number, currency: string): string {
  const unit = minorUnitCents(currency);
  return signedAmount(Math.round(cents / unit) * unit, currency);
}

/** `cents · numerator / denominator`, rounded down, computed exactly (bigint: the product may pass 2^53). */
export function scaledCents(cents: number, numerator: number, denominator: number): number {
  return Number((BigInt(cents) * BigInt(numerator)) / BigInt(denominator));
}

const knownCurrencies = new Set(Intl.supportedValuesOf("currency"));
const decimalsByCurrency = new Map<string, number>();

/**
 * Whether ICU knows the code as an ISO 4217 currency. Cheap (a set), unlike the first currency format a process makes
 * (~30 ms to load ICU's currency data): stored plans are read through this, never through currencyDecimals.
 */
export const isCurrencyCode = (code: string): boolean => knownCurrencies.has(code);

/** The currency's minor unit in decimals, from ICU (KRW and JPY 0, USD 2, BHD 3); undefined for an unknown code. */
export function currencyDecimals(currency: string): number | undefined {
  if (!isCurrencyCode(currency)) return undefined;
  let decimals = decimalsByCurrency.get(currency);
  if (decimals === undefined) {
    decimals = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
      .maximumFractionDigits as number;
    decimalsByCurrency.set(currency, decimals);
  }
  return decimals;
}

/**
 * The smallest amount a currency can be charged, in cents: one of its minor unit (a whole one without; 0.01 where the
 * minor unit is finer than the wire's 2 decimals). A currency ICU does not know never reaches here (amountProblem).
 */
export function minorUnitCents(currency: string): number {
  return 10 ** (WIRE_DECIMALS - wireDecimals(currency));
}

/** The decimals an amount of `currency` is written with: its minor unit's, at most the wire's 2. */
const wireDecimals = (currency: string) =>
  Math.min(WIRE_DECIMALS, currencyDecimals(currency) ?? WIRE_DECIMALS);

/**
 * The currencies the gateway publishes for its merchants (README, The real gateway): the default allow-list of the
 * charge policy.
 */
export const GATEWAY_CURRENCIES: readonly string[] = [
  "KRW",
  "USD",
  "EUR",
  "GBP",
  "JPY",
  "THB",
  "SGD",
  "RUB",
  "HKD",
  "CAD",
  "AUD",
];

/** Why a currency cannot be billed: never echoes the value. */
export function currencyProblem(currency: string, allowed: readonly string[]): string | undefined {
  if (!isCurrencyCode(currency)) return "must be an ISO 4217 currency code";
  if (!allowed.includes(currency)) return `must be one of the merchant's currencies (${allowed.join(", ")})`;
  return undefined;
}

/**
 * Why an amount cannot be charged or refunded in its currency: not a decimal, more decimals than the currency has (or
 * than the wire's 2), beyond the gateway's limit, or not above 0. Never echoes the value.
 */
export function amountProblem(amount: string, currency: string): string | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match?.[1]) return "must be a decimal amount such as 19.90";
  const decimals = Math.min(WIRE_DECIMALS, currencyDecimals(currency) ?? WIRE_DECIMALS);
  const fraction = match[2] ?? "";
  if (fraction.length > decimals)
    return decimals === 0
      ? `must be a whole number: ${currency} has no minor unit`
      : `must have at most ${decimals} decimals in ${currency}`;
  if (!AMOUNT_FORMAT.test(amount))
    return "must be at most 99999999.99 (the gateway's limit), without leading zeros";
  if (toCents(amount) === 0) return "must be greater than 0";
  return undefined;
}

/** A request the core refuses before anything is written or sent: the field and why, never its value. */
export interface InvalidInput {
  readonly kind: "invalid_input";
  readonly field: string;
  readonly message: string;
}

/** The refusal of an amount that `currency` cannot carry (amountProblem), or undefined when it can. */
export function invalidAmount(amount: string, currency: string, field = "amount"): InvalidInput | undefined {
  const message = amountProblem(amount, currency);
  return message === undefined ? undefined : { kind: "invalid_input", field, message };
}

/** The refusal of a sign-up's currency outside the merchant's allow-list, or undefined when allowed. */
export function invalidCurrency(currency: string, allowed: readonly string[]): InvalidInput | undefined {
  const message = currencyProblem(currency, allowed);
  return message === undefined ? undefined : { kind: "invalid_input", field: "plan.currency", message };
}
