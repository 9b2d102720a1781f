import { describe, expect, it } from "vitest";
import type { Subscription } from "../../../functions/core/base/model";
import { actionsOf, PORTAL_ACTIONS, type PortalAction } from "../../../functions/pages/portal-page";

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
