import { describe, expect, it } from "vitest";
import type { ChargeAttempt, Subscription } from "../../../functions/core/base/model";
import { type CheckoutState, checkoutPage } from "../../../functions/pages/checkout/checkout-page";
import type { PageLang } from "../../../functions/pages/shared/page-text";
import { attempt, subscription } from "../../support/billing-repository-contract";
import { LAUNCH20, TEAM_PLAN } from "../../support/pricing";

// The hosted checkout's page with seats and a coupon (README, Hosted checkout): what is bought, the seats, what the
// coupon takes off and for how long, and what is due today — the whole first charge, or nothing for a trial or a
// free first period (the card is only checked) — in each language.

const checkout = (fields: Partial<Subscription> = {}): Subscription =>
  subscription("sub_checkout", {
    status: "pending",
    period: 0,
    next_charge_at: undefined,
    token_id: undefined,
    card: undefined,
    plan: TEAM_PLAN,
    discount: LAUNCH20,
    hosted_checkout: { description: "Team plan" },
    ...fields,
  });

/** The window waiting for the period-0 line `fields` describe. */
const pay = (fields: Partial<ChargeAttempt>): CheckoutState => ({
  kind: "pay",
  line: {
    ...attempt({ subscription_id: "sub_checkout", period: 0, attempt: 0 }, fields),
    window: { fgkey: "FG", sdk_url: "https://gateway.example/sdk.js", request_pay: {} },
  },
});

const render = (sub: Subscription, state: CheckoutState, lang: PageLang = "en") =>
  checkoutPage({ lang, subscription: sub, state, retryUrl: "https://pages.test/retry", formToken: "T" })
    .body ?? "";

describe("the hosted checkout page with seats and a coupon", () => {
  it("shows what is bought, the seats, the coupon and the discounted first charge due today", () => {
    const state = pay({ amount: "47.76", amount_before_discount: "59.70", discount: "11.94" });
    const page = render(checkout(), state);
    expect(page).toContain('<p class="price">Team plan</p><p>$59.70 every month, 3 seats × $19.90</p>');
    expect(page).toContain("<dt>Coupon</dt><dd>LAUNCH20: −$11.94 (20% off, 3 charges)</dd>");
    expect(page).toContain("<dt>Due today</dt><dd>$47.76</dd>");
    const korean = render(checkout(), state, "ko");
    expect(korean).toContain("<p>매월 US$59.70, 좌석 3개 × US$19.90</p>");
    expect(korean).toContain("<dt>쿠폰</dt><dd>LAUNCH20: −US$11.94 (20% 할인, 3회)</dd>");
    expect(korean).toContain("<dt>오늘 결제 금액</dt><dd>US$47.76</dd>");
  });

  it("names the product of a catalog price before the checkout's description", () => {
    const sub = checkout({ plan: { ...TEAM_PLAN, product: "Acme Team" } });
    expect(render(sub, pay({ amount: "47.76" }))).toContain('<p class="price">Acme Team</p>');
  });

  it("a trial or a free first period: nothing due today, the card checked, a trial's first charge and its day", () => {
    const check = pay({ amount: "0.01", verification: true });
    const trial = render(checkout({ trial_end: "2030-01-15T00:00:00.000Z" }), check);
    expect(trial).toContain("<dt>Due today</dt><dd>$0.00</dd>");
    expect(trial).toContain("14-day free trial: the first charge, $47.76, is on January 15, 2030.");
    expect(trial).toContain("Your card is checked with the smallest amount, refunded at once.");
    const free = checkout({ discount: { ...LAUNCH20, percent_off_bp: 10_000, charges_left: 1 } });
    const page = render(free, check, "ko");
    expect(page).toContain("<dt>쿠폰</dt><dd>LAUNCH20: −US$59.70 (100% 할인, 1회)</dd>");
    expect(page).toContain("<dt>오늘 결제 금액</dt><dd>US$0.00</dd>");
    expect(page).toContain("카드 확인을 위해 최소 금액이 결제되며 즉시 환불됩니다.");
  });

  it("once paid: the next charge less the coupon's next turn, and the turns left; the card masked", () => {
    const paid = checkout({
      status: "active",
      period: 1,
      next_charge_at: "2030-02-01T00:00:00.000Z",
      card: { first4: "4111", last4: "1111" },
      discount: { ...LAUNCH20, charges_left: 2 },
    });
    const page = render(paid, { kind: "paid" });
    expect(page).toContain("Next charge: $47.76 on February 1, 2030");
    expect(page).toContain("LAUNCH20: −$11.94 (20% off, 2 more charges, the last on March 1, 2030)");
    expect(page).toContain("4111 •••• 1111");
    expect(page).not.toMatch(/4111111111111111|cvc|expiry/i);
    expect(render(paid, { kind: "paid" }, "ko")).toContain("다음 결제: 2030년 2월 1일, US$47.76");
  });
});
