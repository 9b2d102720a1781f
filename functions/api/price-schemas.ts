import * as z from "zod";
import { amountFitsCurrency, metadataSchema, trialDaysSchema } from "../core/base/model";
import { strictPlanSchema } from "../core/base/subscription-view";
import { lookupKeySchema, type Price } from "../core/ports/price-store";
import { lazySchema } from "../shared/lazy-schema";
import { pageQueryShape, pageView } from "./page-query";

// The catalog routes' input and views (README, Catalog): POST /v1/prices, GET /v1/prices, GET and POST /v1/prices/{id}.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

/** A price's id or its lookup key, as sign-up and checkout name it. */
export const priceReference = lazySchema(() =>
  z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be a price's id or lookup key")
    .describe("A catalog price's id (price_…) or lookup_key: the plan is the price's (instead of `plan`)."),
);

const product = lazySchema(() =>
  z.strictObject({
    name: z
      .string()
      .min(1)
      .max(100)
      .describe("What is sold, as customers see it on pages and the gateway's product line."),
    description: z.string().max(500).optional(),
  }),
);

export const createPriceBody = lazySchema(() =>
  z
    .strictObject({
      product,
      ...strictPlanSchema.shape,
      trial_days: trialDaysSchema
        .optional()
        .describe("A free trial every sign-up on this price starts with."),
      lookup_key: lookupKeySchema
        .optional()
        .describe("Your own stable name of the price (unique among prices)."),
      metadata: metadataSchema.optional(),
    })
    .superRefine(amountFitsCurrency),
);
export type CreatePriceBody = z.output<typeof createPriceBody>;

export const updatePriceBody = lazySchema(() =>
  z
    .strictObject({
      active: z
        .boolean()
        .optional()
        .describe("false archives the price: no new subscription takes it, existing keep it."),
      lookup_key: lookupKeySchema.nullable().optional().describe("A new lookup key; null gives it up."),
      metadata: metadataSchema.optional().describe("Merged key by key; an empty value removes its key."),
    })
    .refine(
      (body) => body.active !== undefined || body.lookup_key !== undefined || body.metadata !== undefined,
      {
        error:
          "must name active, lookup_key or metadata (a price's amount, currency and interval never change)",
      },
    ),
);

export const priceIdParams = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(/^price_[A-Za-z0-9]{1,60}$/, "must be a price id"),
  }),
);

export const listPricesQuery = lazySchema(() =>
  z.strictObject({
    lookup_key: lookupKeySchema.optional(),
    active: z
      .enum(["true", "false"])
      .optional()
      .describe("Only active prices (true) or archived ones (false)."),
    ...pageQueryShape(),
  }),
);

export const priceView = lazySchema(() =>
  z.strictObject({
    price_id: z.string(),
    active: z.boolean(),
    product: product,
    amount: z.string(),
    currency: z.string(),
    interval_months: z.number().int(),
    trial_days: z.number().int().nullable(),
    lookup_key: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    created_at: isoInstant,
  }),
);

export const priceListView = lazySchema(() => pageView(priceView));

export const priceViewOf = (price: Price): z.output<typeof priceView> => ({
  price_id: price.price_id,
  active: price.active,
  product: price.product,
  amount: price.amount,
  currency: price.currency,
  interval_months: price.interval_months,
  trial_days: price.trial_days ?? null,
  lookup_key: price.lookup_key ?? null,
  metadata: { ...price.metadata },
  created_at: price.created_at,
});
