import * as z from "zod";

// Every value on the gateway's wire is a string; these are the shared formats of the seed tables.

const DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;
const SIGNED_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Amount: decimal string, no thousands separator, greater than 0. */
export const amount = z
  .string()
  .regex(DECIMAL, "must be a decimal number without comma")
  .refine((value) => Number(value) > 0, "must be greater than 0");

/** Amount that may be negative (surcharge unit_price) or zero (reconciliation fees). */
export const signedAmount = z.string().regex(SIGNED_DECIMAL, "must be a decimal number without comma");

/** Recurring amounts: at most 10 digits in total, at most 2 of them decimals, greater than 0. */
export const recurringAmount = z
  .string()
  .regex(/^(?:0|[1-9]\d{0,7})(?:\.\d{1,2})?$/, "must have at most 10 digits with 2 decimals, no comma")
  .refine((value) => Number(value) > 0, "must be greater than 0");

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function datePart(value: string): boolean {
  return isCalendarDate(Number(value.slice(0, 4)), Number(value.slice(4, 6)), Number(value.slice(6, 8)));
}

/** YYYYMMDD, a real calendar date. */
export const yyyymmdd = z
  .string()
  .regex(/^\d{8}$/, "must be YYYYMMDD")
  .refine(datePart, "must be a calendar date (YYYYMMDD)");

/** YYYYMMDDHH24 (virtual-account deadline). */
export const yyyymmddhh = z
  .string()
  .regex(/^\d{8}(?:[01]\d|2[0-3])$/, "must be YYYYMMDDHH24")
  .refine(datePart, "must be a calendar date (YYYYMMDDHH24)");

/** YYYYMMDDHHMMSS (transaction timestamps). */
export const yyyymmddhhmmss = z
  .string()
  .regex(/^\d{8}(?:[01]\d|2[0-3])[0-5]\d[0-5]\d$/, "must be YYYYMMDDHHMMSS")
  .refine(datePart, "must be a calendar date (YYYYMMDDHHMMSS)");

/** A required string of bounded length (the seeds' "max N"). */
export const text = (max: number) =>
  z.string().min(1, "is required").max(max, `must be at most ${max} characters`);

/** An optional string of bounded length. */
export const optionalText = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).optional();

export const yesNo = z.enum(["Y", "N"]);

export const mid = text(10);
export const orderId = text(30);
export const transactionId = z.string().length(24, "must be 24 characters");
export const recurringId = text(20);
export const currency = z.string().regex(/^[A-Z]{3}$/, "must be a 3-letter currency code");
export const lang = z.string().regex(/^[A-Za-z]{2}(?:[-_][A-Za-z]{2,4})?$/, "must be a language code");
export const countryCode = z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166 two-letter code");
export const url = text(255).pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }));

/**
 * The rescode/resmsg pair every payment and reconciliation response carries, and the v2 `errcode` (a named reason
 * such as EXPIRED_CARD) that refusals may add.
 */
export const resultEnvelope = z.object({
  rescode: z.string(),
  resmsg: z.string().default(""),
  errcode: z.string().optional(),
});
export type ResultEnvelope = z.infer<typeof resultEnvelope>;

/**
 * Lenient response input: copies misspelled sample keys onto their documented names (when the documented key is
 * absent) so the parsed value exposes only documented names.
 */
export function withAliases<T extends z.ZodType>(aliases: Readonly<Record<string, string>>, schema: T) {
  return z.preprocess((input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
    const copy: Record<string, unknown> = { ...input };
    for (const [misspelled, documented] of Object.entries(aliases)) {
      if (misspelled in copy) {
        if (copy[documented] === undefined) copy[documented] = copy[misspelled];
        delete copy[misspelled];
      }
    }
    return copy;
  }, schema);
}

/** A value the gateway may send as one object or as an array of them; always exposed as an array. */
export function oneOrMany<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (input) => (Array.isArray(input) ? input : input == null ? [] : [input]),
    z.array(schema),
  );
}
