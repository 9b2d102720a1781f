import * as z from "zod";
import { lazyShape } from "../shared/lazy-schema";

// A listing's page, as every list route of the merchant API takes it: how many, and where the page before stopped.

export const pageQueryShape = lazyShape(() => ({
  limit: z
    .string()
    .regex(/^(?:[1-9]\d?|100)$/, "must be a whole number from 1 to 100")
    .transform(Number)
    .optional()
    .describe("At most this many (1 to 100, default 20)."),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,2000}$/, "is not a cursor of this listing")
    .optional()
    .describe("next_cursor of the page before."),
}));

/** A page of a listing's items, and where the next one starts. */
export const pageView = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    data: z.array(item),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last."),
  });
