import { describe, expect, it } from "vitest";
import {
  captureResponse,
  type PaymentRequest,
  type PlaintextCard,
  paymentInput,
  paymentRequest,
  paymentResponse,
  plaintextCard,
} from "../../../../functions/gateway/schemas/payments";
import { rejectedField, requestError } from "../../../support/request-errors";

describe("plaintext card", () => {
  const CARD: PlaintextCard = { card_number: "4111111111111111", expiry_date: "203012", cvc: "737" };

  it("accepts a Luhn-valid card", () => {
    expect(rejectedField(plaintextCard, CARD)).toBeUndefined();
    expect(
      rejectedField(plaintextCard, { ...CARD, card_number: "378282246310005", cvc: "1234" }),
    ).toBeUndefined();
  });

  it.each([
    ["card_number", { ...CARD, card_number: "4111111111111112" }],
    ["card_number", { ...CARD, card_number: "4111 1111 1111 1111" }],
    ["card_number", { ...CARD, card_number: "42424242424" }],
    ["expiry_date", { ...CARD, expiry_date: "203013" }],
    ["expiry_date", { ...CARD, expiry_date: "1230" }],
    ["cvc", { ...CARD, cvc: "12" }],
  ])("rejects a bad %s with a message free of digits", (field, input) => {
    const error = requestError(plaintextCard, input);
    expect(error?.field).toBe(field);
    expect(error?.message).toBeDefined();
    expect(error?.message).not.toMatch(/\d/);
  });
});

describe("non-ui payment", () => {
  const CIPHER = "54Jg0DBngePbQ/HO+4NRWp9yTPkqyiRjaUZeUhkE1c8=";
  const REQUEST: PaymentRequest = {
    payment: {
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      lang: "EN",
      card_number: CIPHER,
      expiry_date: CIPHER,
      cvc: CIPHER,
    },
    merchant: { mid: "MID0000001" },
    buyer: { name: "Ada", email: "ada@example.com" },
    tokenbilling: { token_creation: "Y" },
  };
  const NO_CARD = { order_id: "o-1", currency: "USD", amount: "10.00", lang: "EN" };

  it("accepts card ciphertext, a token rebill and a payment without card", () => {
    expect(rejectedField(paymentRequest, REQUEST)).toBeUndefined();
    expect(
      rejectedField(paymentRequest, { ...REQUEST, payment: NO_CARD, tokenbilling: { token_id: "tok" } }),
    ).toBe(undefined);
    expect(
      rejectedField(paymentRequest, { ...REQUEST, payment: NO_CARD, tokenbilling: undefined }),
    ).toBeUndefined();
  });

  it.each([
    ["payment.cvc", { ...REQUEST, payment: { ...REQUEST.payment, cvc: undefined } }],
    [
      "payment.card_number",
      { ...REQUEST, payment: { ...REQUEST.payment, card_number: "4111111111111111!" } },
    ],
    ["tokenbilling.token_id", { ...REQUEST, tokenbilling: { token_id: "tok" } }],
    [
      "tokenbilling.token_creation",
      { ...REQUEST, payment: NO_CARD, tokenbilling: { token_id: "t", token_creation: "Y" } },
    ],
    ["wallet_a", { ...REQUEST, wallet_a: { payment_data: CIPHER } }],
    ["settings", { ...REQUEST, settings: { display_type: "P" } }],
  ])("rejects %s", (field, input) => {
    expect(rejectedField(paymentRequest, input)).toBe(field);
  });

  it("checks the client input: plaintext card, one source of funds", () => {
    const input = {
      payment: NO_CARD,
      buyer: REQUEST.buyer,
      card: { card_number: "4111111111111111", expiry_date: "203012", cvc: "737" },
    };
    expect(rejectedField(paymentInput, input)).toBeUndefined();
    expect(rejectedField(paymentInput, { ...input, tokenbilling: { token_id: "tok" } })).toBe(
      "tokenbilling.token_id",
    );
    expect(rejectedField(paymentInput, { ...input, wallet_b: { payment_data: { a: 1 } } })).toBe("wallet_b");
    expect(rejectedField(paymentInput, { ...input, payment: { ...NO_CARD, card_number: CIPHER } })).toBe(
      "payment",
    );
  });

  it("reads the verify-field response leniently", () => {
    const parsed = paymentResponse.parse({
      rescode: "0000",
      resmsg: "Success.",
      status: "SALE",
      order_id: "o-1",
      currency: "USD",
      amount: "10.00",
      transaction_id: "T".repeat(24),
      ver: "230",
      cardno1: "4111",
      cardno4: "1111",
      token_id: "tok-1",
      not_documented: "kept",
    });
    expect(parsed).toMatchObject({
      version: "230",
      card_number1: "4111",
      card_number4: "1111",
      token_id: "tok-1",
    });
    expect(parsed.not_documented).toBe("kept");
    expect(paymentResponse.safeParse({ rescode: "0000", resmsg: "", status: "SALE" }).success).toBe(false);
  });
});

describe("capture response", () => {
  const CAPTURED = {
    order_id: "o-1",
    transaction_id: "T1",
    currency: "USD",
    amount: "10.00",
    lang: "EN",
    captured_date: "20300101120000",
  };

  it("reads allowed_pvoid as partially_cancelable, default N", () => {
    const envelope = { rescode: "0000", resmsg: "Success", mid: "MID0000001" };
    expect(
      captureResponse.parse({ ...envelope, payment: { ...CAPTURED, allowed_pvoid: "Y" } }).payment,
    ).toEqual({
      ...CAPTURED,
      partially_cancelable: "Y",
    });
    expect(captureResponse.parse({ ...envelope, payment: CAPTURED }).payment.partially_cancelable).toBe("N");
  });
});
