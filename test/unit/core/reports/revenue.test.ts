import { describe, expect, it } from "vitest";
import { revenueMovements } from "../../../../functions/core/base/events";
import { subscriptionStatus } from "../../../../functions/core/base/model";
import {
  historyOf,
  movementTotals,
  type RevenueState,
  revenueByMonth,
  revenueNow,
} from "../../../../functions/core/reports/revenue";

// The revenue figures of a few subscriptions whose months are worked out by hand below.

const state = (
  id: string,
  status: string,
  amount: string,
  fields: { currency?: string; quantity?: number; interval_months?: number } = {},
): RevenueState => ({
  subscription_id: id,
  status,
  plan: {
    amount,
    currency: fields.currency ?? "USD",
    interval_months: fields.interval_months ?? 1,
    quantity: fields.quantity,
  },
});
const event = (at: string, subscription: RevenueState, sequence = 0) => ({
  occurred_at: at,
  sequence,
  subscription,
});

describe("revenueByMonth", () => {
  // March: A starts at $10; B, a yearly $120 plan, starts (MRR $10); C trials from March 20.
  // April: A goes to 3 seats ($30); B cancels; C's trial converts at $20; D (KRW) starts.
  // May: A pauses; D drops to 1 seat of 2.
  const events = [
    event("2027-03-02T00:00:00Z", state("A", "active", "10.00")),
    event("2027-03-05T00:00:00Z", state("B", "active", "120.00", { interval_months: 12 })),
    event("2027-03-20T00:00:00Z", state("C", "trialing", "20.00")),
    event("2027-04-02T00:00:00Z", state("A", "active", "10.00", { quantity: 3 })),
    event("2027-04-10T00:00:00Z", state("B", "canceled", "120.00", { interval_months: 12 })),
    event("2027-04-20T00:00:00Z", state("C", "active", "20.00")),
    event("2027-04-21T00:00:00Z", state("D", "active", "9900", { currency: "KRW", quantity: 2 })),
    event("2027-05-02T00:00:00Z", state("A", "paused", "10.00", { quantity: 3 })),
    event("2027-05-03T00:00:00Z", state("D", "active", "9900", { currency: "KRW", quantity: 1 })),
  ];
  const months = revenueByMonth(historyOf(events, []), new Date("2027-03-01"), new Date("2027-05-31"));

  it("counts new, expansion, contraction and churn, and MRR moves by exactly them", () => {
    expect(months).toEqual([
      {
        month: "2027-03",
        currency: "USD",
        mrr: "20.00",
        new: "20.00",
        expansion: "0.00",
        contraction: "0.00",
        churned: "0.00",
        active: 2,
        churn_rate: 0,
      },
      {
        month: "2027-04",
        currency: "KRW",
        mrr: "19800",
        new: "19800",
        expansion: "0",
        contraction: "0",
        churned: "0",
        active: 1,
        churn_rate: 0,
      },
      {
        month: "2027-04",
        currency: "USD",
        mrr: "50.00",
        new: "20.00",
        expansion: "20.00",
        contraction: "0.00",
        churned: "10.00",
        active: 2,
        churn_rate: 0.5,
      },
      {
        month: "2027-05",
        currency: "KRW",
        mrr: "9900",
        new: "0",
        expansion: "0",
        contraction: "9900",
        churned: "0",
        active: 1,
        churn_rate: 0,
      },
      {
        month: "2027-05",
        currency: "USD",
        mrr: "20.00",
        new: "0.00",
        expansion: "0.00",
        contraction: "30.00",
        churned: "0.00",
        active: 1,
        churn_rate: 0,
      },
    ]);
    const usd = months.filter((month) => month.currency === "USD");
    for (const [index, month] of usd.entries()) {
      const before = Number(usd[index - 1]?.mrr ?? "0");
      const moved =
        Number(month.new) + Number(month.expansion) - Number(month.contraction) - Number(month.churned);
      expect(Number(month.mrr), month.month).toBeCloseTo(before + moved, 2);
    }
  });

  it("takes a subscription the log holds nothing of as it is stored now, since it was created", () => {
    const stored = { ...state("E", "active", "15.00"), created_at: "2026-01-01T00:00:00Z" };
    const [march] = revenueByMonth(historyOf([], [stored]), new Date("2027-03-01"), new Date("2027-03-31"));
    expect(march).toMatchObject({ mrr: "15.00", new: "0.00", active: 1, churn_rate: 0 });
  });

  it("a resumed subscription's MRR comes back as expansion, not new", () => {
    const resumed = [
      event("2027-01-05T00:00:00Z", state("F", "active", "10.00")),
      event("2027-02-05T00:00:00Z", state("F", "paused", "10.00")),
      event("2027-03-05T00:00:00Z", state("F", "active", "10.00")),
    ];
    const [march] = revenueByMonth(historyOf(resumed, []), new Date("2027-03-01"), new Date("2027-03-31"));
    expect(march).toMatchObject({ mrr: "10.00", new: "0.00", expansion: "10.00" });
  });
});

describe("revenueMovements (what each write's first event carries)", () => {
  const at = (status: string, amount: string, fields: Parameters<typeof state>[3] = {}) => {
    const { plan } = state("X", status, amount, fields);
    return { status: subscriptionStatus.parse(status), plan: { ...plan, quantity: plan.quantity ?? 1 } };
  };

  it("names each change of a subscription's MRR as the monthly report does", () => {
    expect(revenueMovements(at("pending", "10.00"), at("active", "10.00"))).toEqual([
      { kind: "new", currency: "USD", amount: "10.00" },
    ]);
    expect(
      revenueMovements(
        at("trialing", "120.00", { interval_months: 12 }),
        at("active", "120.00", { interval_months: 12 }),
      ),
    ).toEqual([{ kind: "new", currency: "USD", amount: "10.00" }]);
    expect(revenueMovements(at("active", "10.00"), at("active", "10.00", { quantity: 3 }))).toEqual([
      { kind: "expansion", currency: "USD", amount: "20.00" },
    ]);
    expect(revenueMovements(at("past_due", "10.00", { quantity: 3 }), at("active", "10.00"))).toEqual([
      { kind: "contraction", currency: "USD", amount: "20.00" },
    ]);
    expect(revenueMovements(at("active", "10.00"), at("paused", "10.00"))).toEqual([
      { kind: "contraction", currency: "USD", amount: "10.00" },
    ]);
    expect(revenueMovements(at("paused", "10.00"), at("active", "10.00"))).toEqual([
      { kind: "expansion", currency: "USD", amount: "10.00" },
    ]);
    expect(
      revenueMovements(
        at("past_due", "9900", { currency: "KRW" }),
        at("canceled", "9900", { currency: "KRW" }),
      ),
    ).toEqual([{ kind: "churned", currency: "KRW", amount: "9900" }]);
  });

  it("moves nothing where the MRR stays (a renewal, a past-due charge, a canceled trial)", () => {
    expect(revenueMovements(at("active", "10.00"), at("past_due", "10.00"))).toEqual([]);
    expect(revenueMovements(at("trialing", "10.00"), at("canceled", "10.00"))).toEqual([]);
    expect(revenueMovements(at("pending", "10.00"), at("canceled", "10.00"))).toEqual([]);
  });

  it("a plan in another currency is a contraction in one and an expansion in the other", () => {
    expect(revenueMovements(at("active", "10.00"), at("active", "13000", { currency: "KRW" }))).toEqual([
      { kind: "contraction", currency: "USD", amount: "10.00" },
      { kind: "expansion", currency: "KRW", amount: "13000" },
    ]);
  });
});

describe("revenueNow and movementTotals (the dashboard's figures)", () => {
  async function* pages<T>(...all: T[][]) {
    yield* all;
  }

  it("sums the paying plans' MRR and counts them per currency", async () => {
    const plans = pages(
      [
        { amount: "10.00", currency: "USD", interval_months: 1, quantity: 2 },
        { amount: "100.00", currency: "USD", interval_months: 12 },
      ],
      [{ amount: "9900", currency: "KRW", interval_months: 1 }],
    );
    expect(await revenueNow(plans)).toEqual([
      { currency: "KRW", mrr: "9900", active: 1 },
      { currency: "USD", mrr: "28.33", active: 2 },
    ]);
  });

  it("adds up the movements events carry per currency and kind, in the currency's units", () => {
    const totals = movementTotals([
      { mrr_movements: [{ kind: "new", currency: "USD", amount: "10.00" }] },
      {},
      {
        mrr_movements: [
          { kind: "new", currency: "USD", amount: "0.10" },
          { kind: "churned", currency: "KRW", amount: "9900" },
        ],
      },
      { mrr_movements: [{ kind: "new", currency: "USD", amount: "0.20" }] },
    ]);
    expect([...totals].map(([currency, kinds]) => [currency, Object.fromEntries(kinds)])).toEqual([
      ["USD", { new: 10.3 }],
      ["KRW", { churned: 9900 }],
    ]);
  });
});
