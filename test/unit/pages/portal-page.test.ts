import { describe, expect, it } from "vitest";
import type { Subscription } from "../../../functions/core/base/model";
import {
  actionsOf,
  PORTAL_ACTIONS,
  type PortalAction,
  type PortalEntry,
  portalPage,
} from "../../../functions/pages/portal/portal-page";
import type { PageLang } from "../../../functions/pages/shared/page-text";
import { attempt } from "../../support/billing-repository-contract";
import { creditNote, invoice } from "../../support/document-store-contract";
import { LAUNCH20, TEAM_PLAN } from "../../support/pricing";

// What the customer portal offers follows from the subscription's state alone (the page and the posted action,
// portal-actions.ts, both ask actionsOf).

const subscription = (fields: Partial<Subscription>): Subscription => ({
  subscription_id: "sub_portal",
  status: "active",
  billing_mode: "token",
  customer: { name: "Portal Customer", email: "portal@example.com" },
  plan: { amount: "19.90", currency: "USD", interval_months: 1 },
  anchor_at: "2027-03-01T09:00:00.000Z",
  period: 2,
  attempt: 0,
  next_charge_at: "2027-05-01T09:00:00.000Z",
  token_id: "TK",
  card: { first4: "4111", last4: "1111" },
  created_at: "2027-03-01T09:00:00.000Z",
  updated_at: "2027-03-01T09:00:00.000Z",
  ...fields,
});

const ALL = new Set<PortalAction>(PORTAL_ACTIONS);
const offered = (fields: Partial<Subscription>, enabled = ALL) =>
  actionsOf(subscription(fields), enabled, "en").map((action) => action.path);

describe("the portal's actions", () => {
  it("follow the subscription's state", () => {
    expect(offered({})).toEqual(["card", "cancel"]);
    expect(offered({ cancel_at: "2027-05-01T09:00:00.000Z" })).toEqual(["card", "keep"]);
    expect(
      offered({
        status: "past_due",
        dunning: { step: 1, reason: "declined", since: "2027-04-01T09:00:00.000Z" },
      }),
    ).toEqual(["card", "retry"]);
    // A dead card has no retry scheduled: only a new card can pay.
    expect(offered({ status: "past_due", next_charge_at: undefined })).toEqual(["card"]);
    expect(offered({ status: "paused", next_charge_at: undefined })).toEqual(["card", "resume"]);
    expect(offered({ status: "canceled", next_charge_at: undefined })).toEqual([]);
    expect(offered({ billing_mode: "recurring", next_charge_at: undefined })).toEqual(["card"]);
  });

  it("are only those the merchant enabled", () => {
    expect(offered({}, new Set<PortalAction>(["cancel"]))).toEqual(["cancel"]);
    expect(offered({ status: "paused" }, new Set<PortalAction>(["update_card"]))).toEqual(["card"]);
  });
});

/** The portal's page of one subscription, its links under pages.test. */
const render = (entry: PortalEntry, lang: PageLang = "en") =>
  portalPage({
    lang,
    entries: [entry],
    enabled: ALL,
    formToken: "T",
    actionUrl: (id, action) => `https://pages.test/${id}/${action}`,
    receiptUrl: (id) => `https://pages.test/receipts/${id}`,
    documentUrl: (document) => `https://pages.test/documents/${document.number}`,
  }).body ?? "";

describe("the portal with seats and a coupon", () => {
  const seated = (fields: Partial<Subscription> = {}) =>
    subscription({ plan: TEAM_PLAN, discount: { ...LAUNCH20, charges_left: 2 }, ...fields });
  const paid = attempt(
    { subscription_id: "sub_portal", period: 1, attempt: 0 },
    { amount: "47.76", amount_before_discount: "59.70", discount: "11.94", status: "succeeded" },
  );

  it("shows the price of the seats, the coupon until its last charge, the next charge less it, and each discount", () => {
    const page = render({ subscription: seated(), charges: [paid] });
    expect(page).toContain(">$59.70 every month, 3 seats × $19.90</h2>");
    expect(page).toContain("<p>Next charge: $47.76 on May 1, 2027</p>");
    expect(page).toContain(
      "<p>Coupon LAUNCH20: −$11.94 (20% off, 2 more charges, the last on June 1, 2027)</p>",
    );
    expect(page).toContain("<td>$47.76 ($11.94 off)</td>");
    const korean = render({ subscription: seated(), charges: [paid] }, "ko");
    expect(korean).toContain(">매월 US$59.70, 좌석 3개 × US$19.90</h2>");
    expect(korean).toContain("<p>다음 결제: 2027년 5월 1일, US$47.76</p>");
    expect(korean).toContain(
      "<p>쿠폰 LAUNCH20: −US$11.94 (20% 할인, 앞으로 2회, 마지막 할인 2027년 6월 1일)</p>",
    );
    expect(korean).toContain("<td>US$47.76 (US$11.94 할인)</td>");
  });

  it("names the product of a catalog price, a forever coupon, and what an overdue period owes after it", () => {
    const product = render({
      subscription: seated({
        plan: { ...TEAM_PLAN, product: "Acme Team" },
        discount: { ...LAUNCH20, duration: "forever", charges_left: undefined },
      }),
      charges: [],
    });
    expect(product).toContain(">Acme Team</h2>\n<p>$59.70 every month, 3 seats × $19.90</p>");
    expect(product).toContain("<p>Coupon LAUNCH20: −$11.94 (20% off, forever)</p>");
    const overdue = render({ subscription: seated({ status: "past_due" }), charges: [] });
    expect(overdue).toContain("Your last payment of $47.76 did not go through.");
    expect(overdue).toContain("Pay $47.76 with a new card");
    expect(overdue).not.toContain("the last on");
    const ended = render({
      subscription: seated({ status: "canceled", next_charge_at: undefined }),
      charges: [],
    });
    expect(ended).not.toContain("LAUNCH20");
  });
});

describe("the portal's invoices and credit notes", () => {
  it("lists each with its kind, number, day and total, linked to its page, in the page's language", () => {
    const documents = [creditNote("CN-2030", 1), invoice("INV-2030", 2)];
    const english = render({ subscription: subscription({}), charges: [], documents }, "en");
    expect(english).toContain("<h3>Invoices and credit notes</h3>");
    expect(english).toContain(
      '<a href="https://pages.test/documents/INV-2030-000002">Invoice INV-2030-000002</a></td><td>January 1, 2030</td><td>$19.90</td>',
    );
    expect(english).toContain(
      '<a href="https://pages.test/documents/CN-2030-000001">Credit note CN-2030-000001</a>',
    );
    const korean = render({ subscription: subscription({}), charges: [], documents }, "ko");
    expect(korean).toContain("<h3>인보이스와 대변표</h3>");
    expect(korean).toContain(">인보이스 INV-2030-000002</a>");
  });

  it("shows no such table before the first document", () => {
    expect(render({ subscription: subscription({}), charges: [] }, "en")).not.toContain(
      "Invoices and credit notes",
    );
  });
});
