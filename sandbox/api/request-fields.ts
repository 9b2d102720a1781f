import * as z from "zod";

// The value rules of the gateway's request fields as the sandbox reads them, written from the seeds' tables and
// README, The real gateway: every value is a string; lengths and formats as documented; lenient where the real
// gateway is (scheme-less URLs, blanks in optional fields). Messages describe the rule, never the value.

const DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

export const requiredText = (max: number) =>
  z.string().min(1, "is required").max(max, `must be at most ${max} characters`);

export const optionalText = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).optional();

/** A decimal string without thousands separator, greater than 0. */
export const positiveAmount = z
  .string()
  .regex(DECIMAL, "must be a decimal number without comma")
  .refine((value) => Number(value) > 0, "must be greater than 0");

/** A decimal string that may be 0 (a balance). */
export const nonNegativeAmount = z.string().regex(DECIMAL, "must be a decimal number without comma");

/** Recurring amounts: at most 10 digits, 2 of them decimals. */
export const recurringAmount = positiveAmount.refine(
  (value) => /^\d{1,8}(?:\.\d{1,2})?$/.test(value),
  "must have at most 10 digits with 2 decimals",
);

export const currencyCode = z.string().regex(/^[A-Z]{3}$/, "must be a 3-letter currency code");

export const merchantId = requiredText(10);
export const orderId = requiredText(30);
export const transactionId = z.string().length(24, "must be 24 characters");

function isCalendarDay(yyyymmdd: string): boolean {
  const [year, month, day] = [yyyymmdd.slice(0, 4), yyyymmdd.slice(4, 6), yyyymmdd.slice(6, 8)].map(Number);
  const date = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  return date.getUTCMonth() === (month ?? 1) - 1 && date.getUTCDate() === day;
}

/** YYYYMMDD, a real calendar day. */
export const calendarDay = z
  .string()
  .regex(/^\d{8}$/, "must be YYYYMMDD")
  .refine(isCalendarDay, "must be a calendar date");

/**
 * A URL the gateway is given (return_url, status_url, product link): it takes values without a scheme (its own
 * sample sends "eximbay.com"), so only the length is checked.
 */
export const givenUrl = requiredText(255);

/** Where the sandbox itself sends something (sandbox controls): an http(s) URL. */
export const deliverableUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
