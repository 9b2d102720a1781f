import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import { metadataSchema, planSchema, trialDaysSchema } from "../base/model";

// The merchant's catalog of prices (README, Catalog): what a sign-up may take instead of a plan written inline. A
// price's amount, currency and interval never change; a new amount is a new price.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

/** A price's lookup key: the merchant's own stable name of a price ("pro_monthly"), unique among prices. */
export const lookupKeySchema = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1 to 64 letters, digits or _ . : -"),
);

export const priceSchema = lazySchema(() =>
  z.object({
    price_id: z.string(),
    product: z.object({ name: z.string().min(1).max(100), description: z.string().max(500).optional() }),
    amount: planSchema.shape.amount,
    currency: planSchema.shape.currency,
    interval_months: planSchema.shape.interval_months,
    trial_days: trialDaysSchema.optional(),
    lookup_key: lookupKeySchema.optional(),
    metadata: metadataSchema.optional(),
    /** An archived price (false) takes no new subscriptions; those that have it keep it. */
    active: z.boolean(),
    /** Counts the price's writes: each edit expects the revision it read and stores the next. */
    revision: z.number().int().min(1),
    created_at: isoInstant,
    updated_at: isoInstant,
  }),
);
export type Price = z.infer<typeof priceSchema>;

/** What an edit of a price may change: never its amount, currency or interval. */
export interface PriceEdit {
  readonly active?: boolean;
  /** null: the price gives its lookup key up. */
  readonly lookup_key?: string | null;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly updated_at: string;
}

export interface PricePage {
  readonly prices: readonly Price[];
  readonly cursor?: string;
}

export interface PriceStore {
  /** Create-only, its lookup key reserved first: `lookup_key_taken` when another price holds it. */
  createPrice(price: Price): Promise<"created" | "exists" | "lookup_key_taken">;
  getPrice(priceId: string): Promise<Price | undefined>;
  findByLookupKey(lookupKey: string): Promise<Price | undefined>;
  listPrices(
    query: { readonly active?: boolean },
    page: { readonly limit: number; readonly cursor?: string },
  ): Promise<PricePage>;
  /**
   * The edit applied (a new lookup key reserved first), or why not; `busy` when other edits kept coming first
   * (it is then to be asked again).
   */
  updatePrice(
    priceId: string,
    edit: PriceEdit,
  ): Promise<"updated" | "not_found" | "lookup_key_taken" | "busy">;
}
