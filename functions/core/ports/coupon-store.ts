import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";

// The merchant's coupons (README, Coupons): what each takes off, for how long, and how often it may still be redeemed.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

/** A coupon's code as a customer types it: letters, digits, - and _; matched without regard to case. */
export const couponCodeSchema = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9_-]{3,40}$/, "must be 3 to 40 letters, digits, - or _"),
);

/** At most this many redemptions may be capped: each redeeming subscription is kept on the coupon to count it once. */
export const MAX_REDEMPTIONS_LIMIT = 10_000;

export const couponSchema = lazySchema(() =>
  z.object({
    coupon_id: z.string(),
    code: couponCodeSchema.optional(),
    /** Basis points off each charge (1 to 10000: 0.01 % to 100 %). */
    percent_off_bp: z.number().int().min(1).max(10_000).optional(),
    /** An amount off each charge, in `currency`. */
    amount_off: z.string().optional(),
    currency: z.string().optional(),
    duration: z.enum(["once", "repeating", "forever"]),
    /** A repeating coupon's length, in period charges (the sign-up's included). */
    duration_in_months: z.number().int().min(1).optional(),
    max_redemptions: z.number().int().min(1).max(MAX_REDEMPTIONS_LIMIT).optional(),
    /** No redemption from then on. */
    redeem_by: isoInstant.optional(),
    times_redeemed: z.number().int().min(0),
    created_at: isoInstant,
  }),
);
export type Coupon = z.infer<typeof couponSchema>;

export type Redemption =
  /** Counted for this subscription now. */
  | "redeemed"
  /** This subscription had redeemed it already (a retried request): counted once, not again. */
  | "already"
  /** max_redemptions reached: nothing counted. */
  | "exhausted";

export interface CouponPage {
  readonly coupons: readonly Coupon[];
  readonly cursor?: string;
}

export interface CouponStore {
  /** Create-only, with its code reserved first: `code_taken` when another coupon holds the code. */
  createCoupon(coupon: Coupon): Promise<"created" | "exists" | "code_taken">;
  getCoupon(couponId: string): Promise<Coupon | undefined>;
  findByCode(code: string): Promise<Coupon | undefined>;
  listCoupons(page: { readonly limit: number; readonly cursor?: string }): Promise<CouponPage>;
  /**
   * Counts one redemption by `subscriptionId`, exactly under concurrency: never past max_redemptions, and a capped
   * coupon counts each subscription once however often it is asked.
   */
  redeem(coupon: Coupon, subscriptionId: string): Promise<Redemption>;
  /**
   * Gives back a capped coupon's redemption by a subscription that never started (its sign-up refused, its checkout
   * expired): counted down once however often asked. False when the subscription holds none (an uncapped coupon keeps
   * counting the redemptions asked: nothing is limited by it).
   */
  release(couponId: string, subscriptionId: string): Promise<boolean>;
}
