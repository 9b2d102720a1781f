import * as z from "zod";
import { planSchema } from "../core/base/model";
import { type Coupon, couponCodeSchema, MAX_REDEMPTIONS_LIMIT } from "../core/ports/coupon-store";
import { lazySchema } from "../shared/lazy-schema";
import { pageQueryShape, pageView } from "./page-query";

// The coupon routes' input and views (README, Coupons): POST /v1/coupons, GET /v1/coupons, GET /v1/coupons/{id}.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

/** A coupon's id or its code, as sign-up, checkout and a subscription's edit name it. */
export const couponReference = lazySchema(() =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{3,40}$/, "must be a coupon's id or code")
    .describe("A coupon's id (co_…) or its code: its discount applies from this charge on."),
);

/** A percentage with at most 2 decimals: 0 < p ≤ 100. */
const percentOff = lazySchema(() =>
  z
    .number()
    .gt(0)
    .max(100)
    .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, "must have at most 2 decimals")
    .describe(
      "Percent off each charge: more than 0, at most 100, at most 2 decimals. Rounded in the customer's favour.",
    ),
);

export const createCouponBody = lazySchema(() =>
  z
    .strictObject({
      percent_off: percentOff.optional(),
      amount_off: planSchema.shape.amount
        .optional()
        .describe("An amount off each charge (a decimal string, as every amount), in `currency`."),
      currency: planSchema.shape.currency.optional().describe("The currency of amount_off (only with it)."),
      duration: z
        .enum(["once", "repeating", "forever"])
        .describe("once: the next charge; repeating: duration_in_months charges; forever: every charge."),
      duration_in_months: z
        .number()
        .int()
        .min(1)
        .max(36)
        .optional()
        .describe("A repeating coupon's length in charges (the sign-up's included): 1 to 36."),
      max_redemptions: z
        .number()
        .int()
        .min(1)
        .max(MAX_REDEMPTIONS_LIMIT)
        .optional()
        .describe(
          `How many subscriptions may redeem it (1 to ${MAX_REDEMPTIONS_LIMIT}); omitted: any number.`,
        ),
      redeem_by: isoInstant.optional().describe("No redemption from then on."),
      code: couponCodeSchema
        .optional()
        .describe("What customers type (3 to 40 letters, digits, - or _; any case): unique among coupons."),
    })
    .superRefine((body, context) => {
      const issue = (path: string, message: string) =>
        context.addIssue({ code: "custom", path: [path], message });
      if ((body.percent_off === undefined) === (body.amount_off === undefined))
        issue("percent_off", "give percent_off or amount_off (with currency), not both");
      if (body.amount_off !== undefined && body.currency === undefined)
        issue("currency", "is required with amount_off");
      if (body.amount_off === undefined && body.currency !== undefined)
        issue("currency", "goes with amount_off only");
      if ((body.duration === "repeating") !== (body.duration_in_months !== undefined))
        issue("duration_in_months", 'is required with duration "repeating", and only with it');
    }),
);
export type CreateCouponBody = z.output<typeof createCouponBody>;

export const couponIdParams = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(/^co_[A-Za-z0-9]{1,60}$/, "must be a coupon id"),
  }),
);

export const listCouponsQuery = lazySchema(() => z.strictObject(pageQueryShape()));

export const couponView = lazySchema(() =>
  z.strictObject({
    coupon_id: z.string(),
    code: z.string().nullable(),
    percent_off: z.number().nullable(),
    amount_off: z.string().nullable(),
    currency: z.string().nullable(),
    duration: z.enum(["once", "repeating", "forever"]),
    duration_in_months: z.number().int().nullable(),
    max_redemptions: z.number().int().nullable(),
    redeem_by: isoInstant.nullable(),
    times_redeemed: z.number().int().min(0),
    valid: z
      .boolean()
      .describe("Whether it can still be redeemed (before redeem_by, under max_redemptions)."),
    created_at: isoInstant,
  }),
);

export const couponListView = lazySchema(() => pageView(couponView));

export function couponViewOf(coupon: Coupon, now: Date): z.output<typeof couponView> {
  return {
    coupon_id: coupon.coupon_id,
    code: coupon.code ?? null,
    percent_off: coupon.percent_off_bp === undefined ? null : coupon.percent_off_bp / 100,
    amount_off: coupon.amount_off ?? null,
    currency: coupon.currency ?? null,
    duration: coupon.duration,
    duration_in_months: coupon.duration_in_months ?? null,
    max_redemptions: coupon.max_redemptions ?? null,
    redeem_by: coupon.redeem_by ?? null,
    times_redeemed: coupon.times_redeemed,
    valid:
      (coupon.redeem_by === undefined || Date.parse(coupon.redeem_by) > now.getTime()) &&
      (coupon.max_redemptions === undefined || coupon.times_redeemed < coupon.max_redemptions),
    created_at: coupon.created_at,
  };
}
