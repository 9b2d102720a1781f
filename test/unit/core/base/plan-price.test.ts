import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Discount, Plan } from "../../../../functions/core/base/model";
import { fromCents } from "../../../../functions/core/base/money";
import {
  chargeItemOf,
  chargeOf,
  discountCents,
  netBeforeDiscount,
  planTotal,
  taxWithin,
} from "../../../../functions/core/base/plan-price";

// A period's price (README, Seats and Coupons): the unit amount times the seats, less a discount rounded in the
// customer's favour to the currency's minor unit, never below zero.

const plan: Plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const coupon = (terms: Partial<Discount>): Discount => ({
  coupon_id: "co_1",
  duration: "forever",
  applied_at: "2027-01-01T00:00:00.000Z",
  ...terms,
});

describe("a period's price", () => {
  it("is the plan's amount as written for one seat, and the unit amount times the seats otherwise", () => {
    expect(planTotal({ ...plan, amount: "19.9" })).toBe("19.9");
    expect(planTotal({ ...plan, quantity: 3 })).toBe("59.70");
    expect(planTotal({ amount: "1000", currency: "KRW", quantity: 7 })).toBe("7000");
  });

  it("rounds a percentage off up to the minor unit, and takes an amount off whole, never more than the total", () => {
    expect(discountCents(1990, { percent_off_bp: 1500 }, "USD")).toBe(299); // 2.985 → 2.99
    expect(discountCents(100_000, { percent_off_bp: 3333 }, "KRW")).toBe(33_400); // 333.3 → 334 won
    expect(discountCents(1990, { amount_off: "25.00" }, "USD")).toBe(1990);
    expect(chargeOf({ ...plan, quantity: 2 }, coupon({ percent_off_bp: 1000 }))).toEqual({
      amount: "35.82",
      currency: "USD",
      amount_before_discount: "39.80",
      discount: "3.98",
      coupon_id: "co_1",
    });
    expect(chargeOf(plan, coupon({ percent_off_bp: 10_000 })).amount).toBe("0.00");
    expect(chargeOf(plan, undefined)).toEqual({ amount: "19.90", currency: "USD" });
  });

  it("never charges more than the exact discounted price, nor a minor unit less, nor below zero", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99_999_999 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom("USD", "KRW", "JPY"),
        (cents, bp, currency) => {
          const unit = currency === "USD" ? 1 : 100;
          const total = Math.floor(cents / unit) * unit || unit;
          const off = discountCents(total, { percent_off_bp: bp }, currency);
          const exact = (total * bp) / 10_000;
          expect(off).toBeGreaterThanOrEqual(exact);
          expect(off - exact).toBeLessThan(unit);
          expect(off % unit).toBe(0);
          expect(off).toBeLessThanOrEqual(total);
          expect(() => fromCents(total - off, currency)).not.toThrow();
        },
      ),
    );
  });
});

describe("a tax added on top (an exclusive rate)", () => {
  const vat = { name: "VAT", percent: "20" };

  it("is charged on what the discount left, rounded half up to the minor unit", () => {
    expect(chargeOf(plan, undefined, vat)).toEqual({
      amount: "23.88",
      currency: "USD",
      tax: { name: "VAT", percent: "20", amount: "3.98" },
    });
    // 35.82 × 7.25 % = 2.59695 → 2.60, on top of the discounted price.
    expect(
      chargeOf({ ...plan, quantity: 2 }, coupon({ percent_off_bp: 1000 }), { ...vat, percent: "7.25" }),
    ).toEqual({
      amount: "38.42",
      currency: "USD",
      amount_before_discount: "39.80",
      discount: "3.98",
      coupon_id: "co_1",
      tax: { name: "VAT", percent: "7.25", amount: "2.60" },
    });
    // 9,999 won × 10 % = 999.9 → 1,000 won; 1,005 won × 10 % = 100.5 → 101 won (half up).
    expect(
      chargeOf({ amount: "9999", currency: "KRW", interval_months: 1 }, undefined, { ...vat, percent: "10" })
        .amount,
    ).toBe("10999");
    expect(
      chargeOf({ amount: "1005", currency: "KRW", interval_months: 1 }, undefined, { ...vat, percent: "10" })
        .amount,
    ).toBe("1106");
    expect(chargeOf(plan, coupon({ percent_off_bp: 10_000 }), vat).amount).toBe("0.00");
  });

  it("is, in an amount given whole, the share that leaves a net the rate adds back up to it", () => {
    expect(taxWithin("23.88", "USD", vat)).toEqual({ name: "VAT", percent: "20", amount: "3.98" });
    expect(taxWithin("10.00", "USD", undefined)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9_999_999 }),
        fc.integer({ min: 0, max: 10_000 }),
        (cents, basis) => {
          const rate = { name: "T", percent: String(basis / 100) };
          const charged = chargeOf(
            { amount: fromCents(cents, "USD"), currency: "USD", interval_months: 1 },
            undefined,
            rate,
          );
          // What a period charge adds on top is what the same amount given whole holds.
          expect(taxWithin(charged.amount, "USD", rate)?.amount).toBe(charged.tax?.amount);
          expect(netBeforeDiscount(charged)).toBe(fromCents(cents, "USD"));
        },
      ),
    );
  });
});

describe("a period charge's line", () => {
  it("is the product's seats at the unit amount, or one line of what a discount left, its name counting the seats", () => {
    const pro = { ...plan, product: "Pro", quantity: 3 };
    expect(chargeItemOf(pro, { amount: "59.70" })).toEqual({
      name: "Pro",
      quantity: 3,
      unit_amount: "19.90",
    });
    expect(chargeItemOf(pro, { amount: "50.74" })).toEqual({
      name: "Pro × 3",
      quantity: 1,
      unit_amount: "50.74",
    });
    expect(chargeItemOf(plan, { amount: "19.90" })).toEqual({
      name: "Subscription",
      quantity: 1,
      unit_amount: "19.90",
    });
  });
});
