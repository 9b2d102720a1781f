import { describe, expect, it } from "vitest";
import type { Discount, Subscription } from "../../../functions/core/base/model";
import {
  chargedText,
  discountText,
  nextChargeAmountText,
  planPriceText,
} from "../../../functions/pages/shared/price-text";
import { subscription } from "../../support/billing-repository-contract";
import { LAUNCH20, TEAM_PLAN } from "../../support/pricing";

// What pages and mails say a subscription costs: the price with its seats, a coupon and how long it lasts, a charge
// less its discount — each from the amounts its charges are priced by.

/** Three seats with LAUNCH20, `charges_left` turns to go, at period 2 (monthly from Jan 1, 2030). */
const withCoupon = (fields: Partial<Subscription> = {}, discount: Partial<Discount> = {}) =>
  subscription("sub_prices", {
    plan: TEAM_PLAN,
    period: 2,
    discount: { ...LAUNCH20, ...discount },
    ...fields,
  });

describe("a plan's price", () => {
  it("is its total per interval, with the seats that make it when more than one", () => {
    expect(planPriceText({ amount: "19.90", currency: "USD", interval_months: 1 }, "en")).toBe(
      "$19.90 every month",
    );
    expect(planPriceText(TEAM_PLAN, "en")).toBe("$59.70 every month, 3 seats × $19.90");
    expect(planPriceText(TEAM_PLAN, "ko")).toBe("매월 US$59.70, 좌석 3개 × US$19.90");
    expect(planPriceText({ amount: "120000", currency: "KRW", interval_months: 12, quantity: 2 }, "en")).toBe(
      "₩240,000 every 12 months, 2 seats × ₩120,000",
    );
  });

  it("names a tax added on top, and the next charge is the price with it", () => {
    const vat = { name: "VAT", percent: "20" };
    expect(planPriceText(TEAM_PLAN, "en", vat)).toBe("$59.70 every month, 3 seats × $19.90, plus VAT 20%");
    expect(planPriceText(TEAM_PLAN, "ko", { name: "부가세", percent: "10" })).toBe(
      "매월 US$59.70, 좌석 3개 × US$19.90, 부가세 10% 별도",
    );
    expect(nextChargeAmountText(subscription("sub_taxed", { plan: TEAM_PLAN, tax_rate: vat }), "en")).toBe(
      "$71.64",
    );
  });
});

describe("a charge's amount", () => {
  it("names what a coupon took off, and nothing when it took nothing", () => {
    const charge = { amount: "47.76", currency: "USD" };
    expect(chargedText(charge, "en")).toBe("$47.76");
    expect(chargedText({ ...charge, discount: "0.00" }, "en")).toBe("$47.76");
    expect(chargedText({ ...charge, discount: "11.94" }, "en")).toBe("$47.76 ($11.94 off)");
    expect(chargedText({ ...charge, discount: "11.94" }, "ko")).toBe("US$47.76 (US$11.94 할인)");
  });

  it("of the next period charge is the seats' total less the discount", () => {
    expect(nextChargeAmountText(withCoupon(), "en")).toBe("$47.76");
    expect(nextChargeAmountText(withCoupon({ discount: undefined }), "en")).toBe("$59.70");
  });
});

describe("a coupon", () => {
  it("before the first payment: its code, what it takes off the first charge, and for how many charges", () => {
    const checkout = withCoupon({ status: "pending", period: 0, next_charge_at: undefined });
    expect(discountText(checkout, "en")).toBe("LAUNCH20: −$11.94 (20% off, 3 charges)");
    expect(discountText(checkout, "ko")).toBe("LAUNCH20: −US$11.94 (20% 할인, 3회)");
  });

  it("once running: the charges left and the day of the last, on the subscription's schedule", () => {
    const running = withCoupon({}, { charges_left: 2 });
    expect(discountText(running, "en")).toBe(
      "LAUNCH20: −$11.94 (20% off, 2 more charges, the last on April 1, 2030)",
    );
    expect(discountText(running, "ko")).toBe(
      "LAUNCH20: −US$11.94 (20% 할인, 앞으로 2회, 마지막 할인 2030년 4월 1일)",
    );
    // Anchored on the 31st, next charged on Feb 28: the last is on the schedule's day (clamped from the anchor each
    // month), not a month after Feb 28.
    const endOfMonth = withCoupon({ anchor_at: "2030-01-31T09:00:00.000Z", period: 1 }, { charges_left: 2 });
    expect(discountText(endOfMonth, "en")).toContain("the last on March 31, 2030");
    expect(discountText(withCoupon({}, { charges_left: 1 }), "en")).toBe(
      "LAUNCH20: −$11.94 (20% off, 1 more charge)",
    );
  });

  it("names no last day while the schedule may move: overdue, or a new interval waiting", () => {
    expect(discountText(withCoupon({ status: "past_due" }), "en")).toBe(
      "LAUNCH20: −$11.94 (20% off, 3 more charges)",
    );
    const yearly = withCoupon({ scheduled_plan: { ...TEAM_PLAN, interval_months: 12 } });
    expect(discountText(yearly, "en")).toBe("LAUNCH20: −$11.94 (20% off, 3 more charges)");
  });

  it("forever, an amount off, a rate with decimals, and by its id when it has no code", () => {
    const forever = { duration: "forever" as const, charges_left: undefined };
    expect(discountText(withCoupon({}, forever), "en")).toBe("LAUNCH20: −$11.94 (20% off, forever)");
    expect(discountText(withCoupon({}, forever), "ko")).toBe(
      "LAUNCH20: −US$11.94 (20% 할인, 모든 결제에 적용)",
    );
    const amountOff = { code: undefined, percent_off_bp: undefined, amount_off: "5.00", ...forever };
    expect(discountText(withCoupon({}, amountOff), "en")).toBe("co_launch: −$5.00 (forever)");
    // 12.5 % of 59.70 is 7.4625: rounded up, in the customer's favour.
    expect(discountText(withCoupon({}, { percent_off_bp: 1250, charges_left: 1 }), "en")).toBe(
      "LAUNCH20: −$7.47 (12.5% off, 1 more charge)",
    );
    expect(discountText(withCoupon({ discount: undefined }), "en")).toBeUndefined();
  });
});
