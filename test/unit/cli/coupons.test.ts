import { describe, expect, it } from "vitest";
import { couponTable, offText } from "../../../cli/coupons";
import { couponViewOf } from "../../../functions/api/coupon-schemas";
import type { Coupon } from "../../../functions/core/ports/coupon-store";

// The CLI's coupons as the operator reads them: what each takes off, for how long, how often it was redeemed.

const NOW = new Date("2027-04-01T00:00:00.000Z");
const coupon = (fields: Partial<Coupon>) =>
  couponViewOf(
    {
      coupon_id: "co_8x2kd5q1vm",
      percent_off_bp: 2000,
      duration: "repeating",
      duration_in_months: 3,
      times_redeemed: 0,
      created_at: "2027-03-01T09:30:00.000Z",
      ...fields,
    },
    NOW,
  );

describe("the CLI's coupon table", () => {
  it("shows each coupon's code, what it takes off, its charges, redemptions against their cap, and whether valid", () => {
    const lines = couponTable([
      coupon({ code: "LAUNCH20", times_redeemed: 4, max_redemptions: 100 }),
      coupon({
        coupon_id: "co_amount5off",
        percent_off_bp: undefined,
        amount_off: "5.00",
        currency: "USD",
        duration: "forever",
        duration_in_months: undefined,
        redeem_by: "2027-03-31T00:00:00.000Z",
      }),
      coupon({ coupon_id: "co_usedup", duration: "once", times_redeemed: 1, max_redemptions: 1 }),
    ]).split("\n");
    expect(lines[0]).toMatch(/^ID +CODE +OFF +DURATION +REDEEMED +VALID +REDEEM BY +CREATED$/);
    expect(lines[2]).toMatch(
      /^co_8x2kd5q1vm +LAUNCH20 +20% +3 charges +4 of 100 +yes +- +2027-03-01 09:30Z$/,
    );
    expect(lines[3]).toMatch(
      /^co_amount5off +- +5\.00 USD +forever +0 +no +2027-03-31 00:00Z +2027-03-01 09:30Z$/,
    );
    expect(lines[4]).toMatch(/^co_usedup +- +20% +once +1 of 1 +no +/);
  });

  it("writes what a coupon or a discount takes off: a percentage, or an amount in its currency", () => {
    expect(offText({ percent_off: 12.5 }, undefined)).toBe("12.5%");
    expect(offText({ percent_off: null, amount_off: "5000" }, "KRW")).toBe("5000 KRW");
  });
});
