import { describe, expect, it } from "vitest";
import { discountText, planAmountText, priceText, subscriptionTable } from "../../../cli/subscriptions";
import { subscriptionView } from "../../../functions/api/views";
import type { Subscription } from "../../../functions/core/base/model";
import { subscription } from "../../support/billing-repository-contract";
import { LAUNCH20, TEAM_PLAN } from "../../support/pricing";

// What the CLI shows of a subscription's price: the seats and their total, the catalog's price, and the coupon.

const view = (fields: Partial<Subscription> = {}) =>
  subscriptionView(subscription("sub_4mjf0mp6q6kny7ba", { plan: TEAM_PLAN, discount: LAUNCH20, ...fields }));

describe("the CLI's subscription price", () => {
  it("shows the unit amount, and with seats what they come to", () => {
    expect(planAmountText(view())).toBe("19.90 USD × 3 seats = 59.70 USD");
    expect(planAmountText(view({ plan: { ...TEAM_PLAN, quantity: undefined } }))).toBe("19.90 USD");
    expect(subscriptionTable([view()])).toContain("19.90 USD × 3 / 1 mo");
  });

  it("names the catalog's price and its product when the plan came from one", () => {
    expect(priceText(view())).toBe("-");
    expect(priceText(view({ plan: { ...TEAM_PLAN, price_id: "price_team", product: "Team" } }))).toBe(
      "price_team (Team)",
    );
  });

  it("shows the coupon: its code and id, what it takes off, the charges it has left", () => {
    expect(discountText(view())).toBe("LAUNCH20 (co_launch): 20% off, 3 charge(s) left");
    const forever = { ...LAUNCH20, code: undefined, percent_off_bp: undefined, amount_off: "5.00" };
    expect(
      discountText(view({ discount: { ...forever, duration: "forever", charges_left: undefined } })),
    ).toBe("co_launch: 5.00 USD off, forever");
    expect(discountText(view({ discount: undefined }))).toBe("-");
  });
});
