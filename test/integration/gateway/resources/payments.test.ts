import { describe, expect, it } from "vitest";
import { decryptField } from "../../../../functions/gateway/card-crypto";
import type { PaymentInput } from "../../../../functions/gateway/schemas/payments";
import { KEY, MID, OK, PAYMENT, paymentApiServer, TRANSACTION_ID } from "../../../support/payment-api-server";

const gateway = paymentApiServer();

const CARD = { card_number: "4111111111111111", expiry_date: "203012", cvc: "737" };

describe("capture and settle", () => {
  it("captures and reads allowed_pvoid", async () => {
    const captured = {
      ...PAYMENT,
      transaction_id: TRANSACTION_ID,
      captured_date: "20300115080000",
      allowed_pvoid: "Y",
    };
    gateway.answer({ ...OK, mid: MID, payment: captured });
    const outcome = await gateway.client.capture(TRANSACTION_ID, { payment: PAYMENT });
    expect(outcome).toMatchObject({ kind: "success", value: { payment: { partially_cancelable: "Y" } } });
    const request = gateway.onlyRequest();
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/capture`);
    expect(request.json).toEqual({ mid: MID, payment: PAYMENT });
  });

  it("settles", async () => {
    const { lang: _lang, ...settlePayment } = PAYMENT;
    const settled = { ...settlePayment, transaction_id: TRANSACTION_ID, settled_date: "20300115080000" };
    gateway.answer({ ...OK, mid: MID, payment: settled });
    expect(await gateway.client.settle(TRANSACTION_ID, { payment: settlePayment })).toEqual({
      kind: "success",
      value: { ...OK, mid: MID, payment: settled },
    });
    const request = gateway.onlyRequest();
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/settle`);
    expect(request.json).toEqual({ mid: MID, payment: settlePayment });
  });

  it("refuses invalid requests without sending", async () => {
    await gateway.expectRefused(
      () => gateway.client.capture(TRANSACTION_ID, { payment: { ...PAYMENT, lang: "" } }),
      "payment.lang",
    );
    await gateway.expectRefused(() => gateway.client.capture("", { payment: PAYMENT }), "transaction_id");
    await gateway.expectRefused(() => gateway.client.settle(TRANSACTION_ID, { payment: PAYMENT }), "payment"); // lang is not a settle field
    await gateway.expectRefused(
      () =>
        gateway.client.settle(TRANSACTION_ID, { payment: { order_id: "o", currency: "usd", amount: "1" } }),
      "payment.currency",
    );
  });
});

describe("non-ui payment", () => {
  const INPUT: PaymentInput = {
    payment: PAYMENT,
    buyer: { name: "Ada", email: "ada@example.com" },
    card: CARD,
    tokenbilling: { token_creation: "Y" },
  };
  const CHARGED = {
    ...OK,
    status: "SALE",
    ...PAYMENT,
    transaction_id: TRANSACTION_ID,
    token_id: "tok-1",
    cardno1: "4111",
    cardno4: "1111",
  };

  it("encrypts the card itself: Base64 ciphertext that decrypts to the plaintext, which appears nowhere", async () => {
    gateway.answer(CHARGED);
    const outcome = await gateway.client.payment(INPUT);
    expect(outcome).toMatchObject({
      kind: "success",
      value: { token_id: "tok-1", card_number1: "4111", card_number4: "1111" },
    });
    const request = gateway.onlyRequest();
    expect(request.url).toBe("/v1/payments/payment");
    for (const plaintext of Object.values(CARD)) expect(request.body).not.toContain(plaintext);
    const { card_number, expiry_date, cvc, ...payment } = request.json.payment;
    expect(payment).toEqual(PAYMENT);
    for (const ciphertext of [card_number, expiry_date, cvc])
      expect(ciphertext).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect({
      card_number: decryptField(card_number, KEY),
      expiry_date: decryptField(expiry_date, KEY),
      cvc: decryptField(cvc, KEY),
    }).toEqual(CARD);
    expect(request.json).toMatchObject({ merchant: { mid: MID }, tokenbilling: { token_creation: "Y" } });
    expect(request.json).not.toHaveProperty("card");
  });

  it("encrypts wallet data given as a JSON object", async () => {
    gateway.answer(CHARGED);
    const walletData = { token: "wallet-payload", network: "x" };
    const { card: _card, tokenbilling: _token, ...withoutCard } = INPUT;
    await gateway.client.payment({
      ...withoutCard,
      wallet_a: { payment_data: walletData, use_network: "Y" },
    });
    const { wallet_a } = gateway.onlyRequest().json;
    expect(wallet_a.use_network).toBe("Y");
    expect(JSON.parse(decryptField(wallet_a.payment_data, KEY) ?? "")).toEqual(walletData);
  });

  it("classifies a decline and an internal error (unknown: never retried)", async () => {
    gateway.answer({ rescode: "1001", resmsg: "Card declined" });
    expect(await gateway.client.payment(INPUT)).toEqual({
      kind: "declined",
      code: "1001",
      message: "Card declined",
    });
    gateway.answer({ rescode: "EX00", resmsg: "Internal" });
    expect((await gateway.client.payment(INPUT)).kind).toBe("unknown");
    expect(gateway.server.requests).toHaveLength(2);
  });

  it("refuses a bad card without sending and without any digit of it in the error", async () => {
    const bad = { ...CARD, card_number: "4111111111111112" };
    const error = await gateway.expectRefused(
      () => gateway.client.payment({ ...INPUT, card: bad }),
      "card.card_number",
    );
    expect(error.message).not.toMatch(/\d/);
    expect(JSON.stringify(error)).not.toMatch(/\d/);
    await gateway.expectRefused(
      () => gateway.client.payment({ ...INPUT, card: { ...CARD, cvc: "12" } }),
      "card.cvc",
    );
  });

  it("refuses a token rebill mixed with card data or token creation", async () => {
    await gateway.expectRefused(
      () => gateway.client.payment({ ...INPUT, tokenbilling: { token_id: "tok-1" } }),
      "tokenbilling.token_id",
    );
    const { card: _card, ...order } = INPUT;
    await gateway.expectRefused(
      () => gateway.client.payment({ ...order, tokenbilling: { token_id: "tok-1", unique_token_id: "Y" } }),
      "tokenbilling.unique_token_id",
    );
  });
});
