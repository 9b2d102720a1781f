/** Amounts are decimal strings with at most 2 decimals (the gateway's wire format); arithmetic is in integer cents. */

export function toCents(amount: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match?.[1]) throw new RangeError("amount must be a decimal string with at most 2 decimals");
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

export function fromCents(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError("cents must be a non-negative integer");
  const whole = Math.floor(cents / 100);
  const fraction = cents % 100;
  return fraction === 0 ? String(whole) : `${whole}.${String(fraction).padStart(2, "0")}`;
}

/** ISO 4217 currencies without a minor unit: their amounts are whole numbers. */
const ZERO_DECIMAL_CURRENCIES = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "ISK",
  "JPY",
  "KMF",
  "KRW",
  "PYG",
  "RWF",
  "UGX",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
]);

/** The smallest amount a currency can be charged, in cents: one of its minor unit (a whole one without). */
export function minorUnitCents(currency: string): number {
  return ZERO_DECIMAL_CURRENCIES.has(currency) ? 100 : 1;
}
