import { describe, expect, it } from "vitest";
import type { Subscription } from "../../../../functions/core/base/model";
import { lostPeriodOf, periodsStartedBy } from "../../../../local/chaos/invariant-checks";
import { dueSubscription } from "../../../support/fake-billing";

/** Signed up on a month's last day: its periods start on the last day of each month. */
const subscription = (fields: Partial<Subscription>) =>
  dueSubscription("sub_a", { anchor_at: "2027-01-31T08:00:00.000Z", ...fields });

describe("chaos invariants", () => {
  it("counts the periods started by a time, with month-end anchors clamped", () => {
    const sub = subscription({});
    expect(periodsStartedBy(sub, new Date("2027-01-31T08:00:00.000Z"))).toBe(1);
    expect(periodsStartedBy(sub, new Date("2027-02-28T07:59:59.999Z"))).toBe(1);
    expect(periodsStartedBy(sub, new Date("2027-02-28T08:00:00.000Z"))).toBe(2);
    expect(periodsStartedBy(sub, new Date("2027-03-31T08:00:00.000Z"))).toBe(3);
  });

  it("calls a due, unpaid period of an active subscription lost, and dunning with a reason not", () => {
    expect(lostPeriodOf(subscription({ period: 1 }), 2)).toMatch(/period 1 due/);
    expect(lostPeriodOf(subscription({ period: 2 }), 2)).toBeUndefined();
    expect(
      lostPeriodOf(subscription({ status: "past_due", status_reason: "payment_declined" }), 2),
    ).toBeUndefined();
    expect(lostPeriodOf(subscription({ status: "past_due" }), 2)).toMatch(/without a reason/);
    expect(lostPeriodOf(subscription({ status: "canceled" }), 2)).toMatch(/without a reason/);
    expect(lostPeriodOf(subscription({ status: "pending" }), 2)).toMatch(/pending/);
  });
});
