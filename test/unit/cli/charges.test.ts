import { describe, expect, it } from "vitest";
import { chargeTable } from "../../../cli/charges";
import type { ChargeView } from "../../../functions/api/merchant-api-views";
import { INSUFFICIENT_FUNDS_DECLINE } from "../../support/declines";

const charge = (fields: Partial<ChargeView>): ChargeView => ({
  charge_id: "sub_cli-1-0",
  kind: "scheduled",
  period: 1,
  attempt: 0,
  order_id: "sub_cli-1-0",
  amount: "19.90",
  amount_before_discount: "19.90",
  discount: "0.00",
  currency: "USD",
  status: "succeeded",
  refunded_amount: "0.00",
  created_at: "2027-04-01T10:00:00.000Z",
  ...fields,
});

describe("the CLI's charge table", () => {
  it("explains each decline under the table: its codes, why, and what can be done", () => {
    const table = chargeTable([
      charge({ charge_id: "sub_cli-0-0", period: 0, transaction_id: "T0" }),
      charge({
        status: "declined",
        decline: INSUFFICIENT_FUNDS_DECLINE,
      }),
      charge({ charge_id: "sub_cli-1-1", attempt: 1, status: "declined", decline: { rescode: "TK01" } }),
    ]);
    const lines = table.split("\n");
    // Wrapped to fit 120 columns, the rest indented.
    expect(lines.slice(-3)).toEqual([
      "sub_cli-1-0 declined (DC51 INSUFFICIENT_FUNDS). The card has insufficient funds. Next: the same card may pay later",
      "  (dunning retries it).",
      "sub_cli-1-1 declined (TK01).",
    ]);
    // The header, its rule and the three charges above them.
    expect(lines).toHaveLength(8);
  });
});

describe("the CLI's charge table with discounts", () => {
  it("names under the table what a coupon took off each charge it took part in", () => {
    const table = chargeTable([
      charge({
        charge_id: "sub_cli-0-0",
        period: 0,
        amount: "47.76",
        amount_before_discount: "59.70",
        discount: "11.94",
        coupon_id: "co_launch",
      }),
      charge({
        status: "declined",
        decline: { rescode: "TK01" },
        amount: "59.70",
        amount_before_discount: "59.70",
      }),
    ]);
    const lines = table.split("\n");
    expect(lines[0]).toMatch(/^CHARGE +KIND +AMOUNT USD +STATUS/);
    expect(lines[2]).toMatch(/^sub_cli-0-0 +scheduled +47\.76 +succeeded/);
    expect(lines.slice(-2)).toEqual([
      "sub_cli-0-0: 11.94 off 59.70 USD (coupon co_launch).",
      "sub_cli-1-0 declined (TK01).",
    ]);
  });
});
