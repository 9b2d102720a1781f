import { describe, expect, it } from "vitest";
import type { Payout, PayoutDay } from "../../../../functions/core/ports/settlement-store";
import { payoutsReport } from "../../../../functions/core/reports/payouts";

function payout(date: string, currency: string, overrides: Partial<Payout> = {}): Payout {
  return {
    remittance_date: date,
    currency,
    status: "settled",
    movements: 2,
    gross: "39.80",
    fees: "1.36",
    vat: "0.14",
    adjust: "0.00",
    net: "38.30",
    deposit_currency: currency,
    deposit_amount: "38.30",
    ...overrides,
  };
}

const day = (date: string, payouts: Payout[], overrides: Partial<PayoutDay> = {}): PayoutDay => ({
  remittance_date: date,
  status: "settled",
  payouts,
  mismatches: 0,
  reconciled_at: "2027-03-20T03:30:00.000Z",
  ...overrides,
});

describe("payoutsReport", () => {
  it("adds up each currency's settled payouts, leaves forecasts out of the totals, and names the days not kept", () => {
    const report = payoutsReport(
      ["20270310", "20270311", "20270312", "20270313"],
      [
        day("20270310", [
          payout("20270310", "USD"),
          payout("20270310", "KRW", { gross: "50000", fees: "1700", vat: "170", net: "48130" }),
        ]),
        day(
          "20270311",
          [
            payout("20270311", "USD", {
              gross: "-5.00",
              fees: "-0.17",
              vat: "-0.02",
              adjust: "-1.00",
              net: "-5.81",
            }),
          ],
          { mismatches: 2 },
        ),
        day("20270313", [payout("20270313", "USD", { status: "expected" })], { status: "expected" }),
      ],
    );
    expect(report.totals).toEqual([
      {
        currency: "KRW",
        remittances: 1,
        movements: 2,
        gross: "50000",
        fees: "1700",
        vat: "170",
        adjust: "0",
        net: "48130",
      },
      {
        currency: "USD",
        remittances: 2,
        movements: 4,
        gross: "34.80",
        fees: "1.19",
        vat: "0.12",
        adjust: "-1.00",
        net: "32.49",
      },
    ]);
    expect(report).toMatchObject({
      from: "20270310",
      to: "20270313",
      mismatches: 2,
      unreconciled: ["20270312"],
    });
    expect(report.payouts.map((each) => [each.remittance_date, each.currency, each.status])).toEqual([
      ["20270310", "USD", "settled"],
      ["20270310", "KRW", "settled"],
      ["20270311", "USD", "settled"],
      ["20270313", "USD", "expected"],
    ]);
  });
});
