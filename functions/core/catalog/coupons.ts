import type { BillingMode, Discount, Subscription } from "../base/model";
import { amountProblem, type InvalidInput } from "../base/money";
import type { Clock, IdSource } from "../ports/clock";
import type { Coupon, CouponStore } from "../ports/coupon-store";

// Coupons (README, Coupons): made once by the merchant, redeemed by subscriptions at sign-up, at checkout or later.
// A redemption copies the coupon's terms onto the subscription, so no charge reads the coupon again.

export interface CouponDeps {
  readonly coupons: CouponStore;
  readonly ids: IdSource;
  readonly clock: Clock;
}

/** A coupon as the merchant asks for it (the API's schema has checked each field on its own). */
export interface NewCoupon {
  readonly percent_off?: number;
  readonly amount_off?: string;
  readonly currency?: string;
  readonly duration: Coupon["duration"];
  readonly duration_in_months?: number;
  readonly max_redemptions?: number;
  readonly redeem_by?: string;
  readonly code?: string;
}

export interface Conflict {
  readonly kind: "conflict";
  readonly reason: string;
}

export type CouponCreation = { readonly kind: "created"; readonly coupon: Coupon } | InvalidInput | Conflict;

/** The prefix of every coupon id: a reference without it is a code. */
export const COUPON_ID_PREFIX = "co_";

const invalid = (field: string, message: string): InvalidInput => ({ kind: "invalid_input", field, message });

/**
 * Creates a coupon, once per request key: a retried request answers the coupon its first try made. Its code, when it
 * has one, is reserved first, so no two coupons ever share one.
 */
export async function createCoupon(
  request: NewCoupon,
  requestKey: string | undefined,
  deps: CouponDeps,
): Promise<CouponCreation> {
  if (request.amount_off !== undefined && request.currency !== undefined) {
    const problem = amountProblem(request.amount_off, request.currency);
    if (problem !== undefined) return invalid("amount_off", problem);
  }
  const now = deps.clock.now();
  if (request.redeem_by !== undefined && Date.parse(request.redeem_by) <= now.getTime())
    return invalid("redeem_by", "must be in the future");
  const coupon: Coupon = {
    coupon_id: requestKey === undefined ? deps.ids.couponId() : deps.ids.couponIdFor(requestKey),
    ...(request.code === undefined ? {} : { code: request.code }),
    ...(request.percent_off === undefined ? {} : { percent_off_bp: Math.round(request.percent_off * 100) }),
    ...(request.amount_off === undefined
      ? {}
      : { amount_off: request.amount_off, currency: request.currency }),
    duration: request.duration,
    ...(request.duration_in_months === undefined ? {} : { duration_in_months: request.duration_in_months }),
    ...(request.max_redemptions === undefined ? {} : { max_redemptions: request.max_redemptions }),
    ...(request.redeem_by === undefined ? {} : { redeem_by: request.redeem_by }),
    times_redeemed: 0,
    created_at: now.toISOString(),
  };
  const created = await deps.coupons.createCoupon(coupon);
  if (created === "code_taken") return { kind: "conflict", reason: "another coupon has this code" };
  const stored = created === "exists" ? await deps.coupons.getCoupon(coupon.coupon_id) : coupon;
  return { kind: "created", coupon: stored ?? coupon };
}

/** A coupon by its id, or by its code. */
export async function findCoupon(reference: string, deps: Pick<CouponDeps, "coupons">) {
  const byId = reference.startsWith(COUPON_ID_PREFIX) ? await deps.coupons.getCoupon(reference) : undefined;
  return byId ?? (await deps.coupons.findByCode(reference));
}

/** What a subscription redeeming a coupon must be: its id, its plan's currency and who charges it. */
export interface Redeemer {
  readonly subscription_id: string;
  readonly currency: string;
  readonly billing: BillingMode;
  /** The coupon the subscription has already: applied again, it is not counted again. */
  readonly applied?: string;
}

export type DiscountGrant =
  | { readonly kind: "granted"; readonly discount: Discount }
  | InvalidInput
  | Conflict;

/**
 * Redeems the coupon `reference` names for a subscription: counted once for it (exactly, under any concurrency: never
 * past max_redemptions), and its terms as the subscription's discount. Refused, counting nothing: an unknown coupon,
 * one of another currency, a gateway-managed plan (400 naming `field`); one past redeem_by or redeemed as often as it
 * may (409).
 */
export async function redeemCoupon(
  reference: string,
  redeemer: Redeemer,
  deps: Pick<CouponDeps, "coupons" | "clock">,
  field = "coupon",
): Promise<DiscountGrant> {
  const coupon = await findCoupon(reference, deps);
  if (coupon === undefined) return invalid(field, "is not a coupon of this account");
  if (redeemer.billing !== "token")
    return invalid(
      field,
      "a plan the gateway charges itself charges the same amount every period: no coupon",
    );
  if (coupon.currency !== undefined && coupon.currency !== redeemer.currency)
    return invalid(
      field,
      `takes an amount off in ${coupon.currency}, and the plan is in ${redeemer.currency}`,
    );
  const now = deps.clock.now();
  if (coupon.coupon_id === redeemer.applied) return { kind: "granted", discount: discountOf(coupon, now) };
  if (coupon.redeem_by !== undefined && Date.parse(coupon.redeem_by) <= now.getTime())
    return { kind: "conflict", reason: "the coupon can no longer be redeemed: its redeem_by has passed" };
  const counted = await deps.coupons.redeem(coupon, redeemer.subscription_id);
  if (counted === "exhausted")
    return { kind: "conflict", reason: "the coupon has been redeemed as often as it may (max_redemptions)" };
  return { kind: "granted", discount: discountOf(coupon, now) };
}

/**
 * A subscription that ended before it started (its sign-up refused, its checkout expired) gives its coupon's
 * redemption back, so a capped coupon's turn goes to a customer who pays.
 */
export async function releaseIfNeverStarted(
  subscription: Subscription,
  deps: { readonly coupons: Pick<CouponStore, "release"> },
): Promise<void> {
  const couponId = subscription.discount?.coupon_id;
  if (couponId === undefined || subscription.status !== "canceled" || subscription.period > 0) return;
  await deps.coupons.release(couponId, subscription.subscription_id);
}

/** The coupon's terms as a subscription keeps them. */
export function discountOf(coupon: Coupon, appliedAt: Date): Discount {
  const charges =
    coupon.duration === "once" ? 1 : coupon.duration === "repeating" ? coupon.duration_in_months : undefined;
  return {
    coupon_id: coupon.coupon_id,
    ...(coupon.code === undefined ? {} : { code: coupon.code }),
    ...(coupon.percent_off_bp === undefined ? {} : { percent_off_bp: coupon.percent_off_bp }),
    ...(coupon.amount_off === undefined ? {} : { amount_off: coupon.amount_off }),
    duration: coupon.duration,
    ...(charges === undefined ? {} : { charges_left: charges }),
    applied_at: appliedAt.toISOString(),
  };
}
