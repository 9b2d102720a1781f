import * as z from "zod";
import { mid, recurringAmount, recurringId, resultEnvelope } from "./primitives";

// Recurring (seeds/000): the payments the gateway itself repeats (a ready or payment with a recurring object), deleted
// or adjusted by recurring_id.

/** The recurring_id path segment (at most 20 characters). */
export const recurringIdParam = z.object({ recurring_id: recurringId });

/** Delete body is not shown in the seed: mid identifies the merchant, like every other body. */
export const recurringDeleteRequest = z.strictObject({ mid });
export type RecurringDeleteRequest = z.output<typeof recurringDeleteRequest>;

export const recurringAdjustRequest = z.strictObject({ adjust_amount: recurringAmount });
export type RecurringAdjustRequest = z.output<typeof recurringAdjustRequest>;
export type RecurringAdjustInput = z.input<typeof recurringAdjustRequest>;

export const recurringResponse = resultEnvelope;
export type RecurringResponse = z.output<typeof recurringResponse>;
