import { describe, expect, it } from "vitest";
import { parseRequest } from "../../../../functions/gateway/errors";
import {
  receiptUrlResponse,
  retrieveRequest,
  retrieveResponse,
} from "../../../../functions/gateway/schemas/retrieve";
import { rejectedField } from "../../../support/request-errors";

describe("retrieve", () => {
  const REQUEST = {
    mid: "MID0000001",
    payment: {
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      lang: "EN",
      transaction_id: "T".repeat(24),
    },
  };

  it("defaults key_field to transaction_id", () => {
    expect(parseRequest(retrieveRequest, REQUEST).key_field).toBe("transaction_id");
    expect(
      parseRequest(retrieveRequest, {
        ...REQUEST,
        key_field: "order_id",
        payment: { ...REQUEST.payment, transaction_id: undefined },
      }).key_field,
    ).toBe("order_id");
  });

  it.each([
    ["payment.transaction_id", { ...REQUEST, payment: { ...REQUEST.payment, transaction_id: undefined } }],
    [
      "payment.transaction_id",
      { ...REQUEST, payment: { ...REQUEST.payment, transaction_id: "T".repeat(23) } },
    ],
    ["payment.refund_id", { ...REQUEST, key_field: "refund_id" }],
    ["key_field", { ...REQUEST, key_field: "email" }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(retrieveRequest, input)).toBe(field);
  });

  const RECORD = {
    status: "SALE",
    order_id: "o-1",
    currency: "USD",
    amount: "10.00",
    transaction_id: "T".repeat(24),
    transaction_date: "20300101120000",
  };

  it("exposes card_info under the documented names (sample spells cardno1/cardno4)", () => {
    const parsed = retrieveResponse.parse({
      rescode: "0000",
      resmsg: "Success.",
      mid: "MID0000001",
      payment: { ...RECORD, balance: "10.00", unexpected: "ignored" },
      card_info: { cardno1: "4111", cardno4: "1111" },
    });
    expect(parsed.card_info).toEqual({ card_number1: "4111", card_number4: "1111" });
    expect(parsed.payment).toEqual({ ...RECORD, balance: "10.00" });
  });

  it("accepts a NONE record without transaction fields but requires them otherwise", () => {
    const envelope = { rescode: "0000", resmsg: "Success", mid: "MID0000001" };
    const none = retrieveResponse.parse({ ...envelope, payment: { status: "NONE", order_id: "o-1" } });
    expect(none.payment).toEqual({ status: "NONE", order_id: "o-1" });
    expect(
      retrieveResponse.safeParse({ ...envelope, payment: { ...RECORD, transaction_id: undefined } }).success,
    ).toBe(false);
  });
});

describe("receipt url response", () => {
  it("takes the receipt URL from receipt_url or url", () => {
    expect(
      receiptUrlResponse.parse({ rescode: "0000", resmsg: "", url: "https://r.example/1" }).receipt_url,
    ).toBe("https://r.example/1");
    expect(receiptUrlResponse.parse({ rescode: "0000", resmsg: "" }).receipt_url).toBeUndefined();
  });
});
