import { describe, expect, it } from "vitest";
import {
  cancelRequest,
  cancelRequestFor,
  cancelResponse,
} from "../../../../functions/gateway/schemas/cancel";
import { rejectedField } from "../../../support/request-errors";

describe("cancel", () => {
  const REQUEST = {
    mid: "MID0000001",
    refund: { refund_type: "P", refund_amount: "4.00", refund_id: "r-1", reason: "customer request" },
    payment: { order_id: "o-1", currency: "USD", amount: "10.00", balance: "6.00", lang: "EN" },
  };

  it("accepts a partial refund within the balance and a full refund without amount", () => {
    expect(rejectedField(cancelRequest, REQUEST)).toBeUndefined();
    expect(
      rejectedField(cancelRequest, {
        ...REQUEST,
        refund: { ...REQUEST.refund, refund_type: "F", refund_amount: undefined },
      }),
    ).toBeUndefined();
  });

  it.each([
    ["refund.refund_amount", { ...REQUEST, refund: { ...REQUEST.refund, refund_amount: undefined } }],
    ["refund.refund_amount", { ...REQUEST, refund: { ...REQUEST.refund, refund_amount: "6.01" } }],
    ["payment.balance", { ...REQUEST, payment: { ...REQUEST.payment, balance: "10.01" } }],
    ["refund.refund_type", { ...REQUEST, refund: { ...REQUEST.refund, refund_type: "X" } }],
    ["refund.reason", { ...REQUEST, refund: { ...REQUEST.refund, reason: "" } }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(cancelRequest, input)).toBe(field);
  });

  it("requires refund_account and tax for a virtual account, tax amounts for a points wallet", () => {
    const tax = { amount_tax_free: "0", amount_taxable: "3.64", amount_vat: "0.36", amount_service_fee: "0" };
    const account = { user_name: "Ada", bank_code: "004", account_number: "0000000000" };
    expect(rejectedField(cancelRequestFor("virtual_account"), REQUEST)).toBe("refund_account");
    expect(rejectedField(cancelRequestFor("virtual_account"), { ...REQUEST, refund_account: account })).toBe(
      "tax",
    );
    expect(
      rejectedField(cancelRequestFor("virtual_account"), { ...REQUEST, refund_account: account, tax }),
    ).toBe(undefined);
    expect(
      rejectedField(cancelRequestFor("points_wallet"), {
        ...REQUEST,
        tax: { ...tax, amount_vat: undefined },
      }),
    ).toBe("tax.amount_vat");
    expect(rejectedField(cancelRequestFor(undefined), REQUEST)).toBeUndefined();
  });

  it("reads the misspelled foregin_* sample keys", () => {
    const parsed = cancelResponse.parse({
      rescode: "0000",
      resmsg: "Success.",
      mid: "MID0000001",
      refund: {
        refund_amount: "4.00",
        refund_id: "r-1",
        refund_date: "20300101120000",
        refund_transaction_id: "R1",
      },
      payment: { order_id: "o-1", currency: "USD", amount: "10.00", transaction_id: "T1", balance: "2.00" },
      foreign: { foregin_currency: "KRW", foregin_amount: "5000", foregin_rate: "1250" },
    });
    expect(parsed.foreign).toEqual({ foreign_currency: "KRW", foreign_amount: "5000", foreign_rate: "1250" });
  });
});
