import type { Discount, Subscription } from "../base/model";
import type { RemovableSubscriptionField } from "../ports/billing-repository";

// What a subscription's discount does as its charges are paid, and as the merchant applies or removes a coupon.

/** A change of the discount within a larger write: what to set and remove, and whether it is announced. */
export interface DiscountChange {
  readonly set: { readonly discount?: Discount };
  readonly remove: readonly RemovableSubscriptionField[];
  readonly changed: readonly "discount"[];
}

const NO_CHANGE: DiscountChange = { set: {}, remove: [], changed: [] };

/**
 * A period charge paid with the discount of `couponId` (the line's; undefined: charged without one): one charge fewer
 * left, and after its last the discount ends, announced as a change of `discount`. A forever discount never ends.
 */
export function discountUsed(subscription: Subscription, couponId: string | undefined): DiscountChange {
  const { discount } = subscription;
  if (discount === undefined || couponId !== discount.coupon_id || discount.charges_left === undefined)
    return NO_CHANGE;
  if (discount.charges_left > 1)
    return {
      set: { discount: { ...discount, charges_left: discount.charges_left - 1 } },
      remove: [],
      changed: [],
    };
  return { set: {}, remove: ["discount"], changed: ["discount"] };
}

/**
 * A coupon applied (its discount replaces any other from the next charge on) or removed (null). Undefined: the same
 * coupon applied again, or nothing to remove. A string: why it cannot be.
 */
export function discountEdit(
  subscription: Subscription,
  discount: Discount | null,
): DiscountChange | undefined | string {
  if (subscription.status === "canceled") return "subscription is canceled";
  if (discount === null)
    return subscription.discount === undefined
      ? undefined
      : { set: {}, remove: ["discount"], changed: ["discount"] };
  if (subscription.billing_mode !== "token")
    return "a plan the gateway charges itself charges the same amount every period: it takes no coupon";
  if (subscription.discount?.coupon_id === discount.coupon_id) return undefined;
  return { set: { discount }, remove: [], changed: ["discount"] };
}
