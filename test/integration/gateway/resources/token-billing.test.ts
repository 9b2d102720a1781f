import { describe, expect, it } from "vitest";
import {
  API_KEY,
  MID,
  OK,
  PAYMENT,
  paymentApiServer,
  TRANSACTION_ID,
} from "../../../support/payment-api-server";

const gateway = paymentApiServer();

describe("token billing (the real gateway's endpoints)", () => {
  const ORDER = { payment: { order_id: PAYMENT.order_id, currency: "USD", amount: "10.00", lang: "EN" } };
  // The real answer: the transaction nested under payment, no status (README, The real gateway).
  const REBILLED = {
    ...OK,
    payment: {
      ...ORDER.payment,
      transaction_id: TRANSACTION_ID,
      auth_code: "309812",
      transaction_date: "20300115170000",
      access_country: "KR",
      payment_method: "P101",
      pay_to: "EXIMBAY.COM",
      payment_method_name: "VISA",
    },
    card_info: { card_holder: "ADA", card_number1: "4111", card_number4: "1111" },
  };

  it("rebills on POST /tokenbilling/{token_id}/rebill: the token in the path, no card, the answer nested", async () => {
    gateway.answer(REBILLED);
    const outcome = await gateway.client.rebill("tok/1", {
      ...ORDER,
      buyer: { name: "Ada", email: "ada@example.com" },
    });
    expect(outcome).toEqual({ kind: "success", value: { ...REBILLED, errcode: undefined, mid: undefined } });
    const request = gateway.onlyRequest();
    expect(request).toMatchObject({ method: "POST", url: "/v1/payments/tokenbilling/tok%2F1/rebill" });
    expect(request.json).toEqual({
      ...ORDER,
      merchant: { mid: MID },
      buyer: { name: "Ada", email: "ada@example.com" },
    });
  });

  it("classifies a rebill's refusal with its v2 errcode, and a transient error as unknown (never resent)", async () => {
    gateway.answer({ rescode: "1001", resmsg: "Declined", errcode: "STOLEN_OR_LOST_CARD" });
    expect(await gateway.client.rebill("tok-1", ORDER)).toEqual({
      kind: "declined",
      code: "1001",
      message: "Declined",
      errcode: "STOLEN_OR_LOST_CARD",
    });
    for (const rescode of ["EM00", "EX1000", "EE99"]) {
      gateway.answer({ rescode, resmsg: "try again later" });
      expect((await gateway.client.rebill("tok-1", ORDER)).kind, rescode).toBe("unknown");
    }
    gateway.answer({ rescode: "9999", resmsg: "later", errcode: "TEMPORARY_ERROR" });
    expect((await gateway.client.rebill("tok-1", ORDER)).kind).toBe("unknown");
    expect(gateway.server.requests).toHaveLength(5);
  });

  it("refuses a bad token or order without sending", async () => {
    await gateway.expectRefused(() => gateway.client.rebill("", ORDER), "token_id");
    await gateway.expectRefused(
      () => gateway.client.rebill("tok-1", { payment: { ...ORDER.payment, amount: "1,000" } }),
      "payment.amount",
    );
  });

  it("deletes a token with an empty JSON body, and inquires with GET", async () => {
    expect(await gateway.client.deleteToken("tok-1")).toEqual({ kind: "success", value: OK });
    expect(gateway.onlyRequest()).toMatchObject({
      method: "POST",
      url: "/v1/payments/tokenbilling/tok-1/delete",
      json: {},
    });
    gateway.server.reset();
    gateway.answer({ ...OK, card_info: { card_holder: "ADA", cardno1: "4111", cardno4: "1111" } });
    expect(await gateway.client.inquireToken("tok-1")).toMatchObject({
      kind: "success",
      value: { rescode: "0000", card_info: { card_number1: "4111", card_number4: "1111" } },
    });
    const [inquiry] = gateway.server.requests;
    expect(gateway.server.requests).toHaveLength(1);
    expect(inquiry).toMatchObject({ method: "GET", url: "/v1/payments/tokenbilling/tok-1", body: "" });
    expect(inquiry?.headers.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}`);
  });

  it("keeps the seed's form by configuration: the non-ui payment with tokenbilling.token_id", async () => {
    const seedClient = gateway.clientWith({ rebillEndpoint: "payment" });
    gateway.answer({
      ...OK,
      status: "SALE",
      ...ORDER.payment,
      transaction_id: TRANSACTION_ID,
      cardno1: "4111",
      cardno4: "1111",
    });
    const buyer = { name: "Ada", email: "ada@example.com" };
    const outcome = await seedClient.rebill("tok-1", { ...ORDER, buyer });
    expect(outcome).toMatchObject({
      kind: "success",
      value: {
        rescode: "0000",
        payment: {
          order_id: PAYMENT.order_id,
          currency: "USD",
          amount: "10.00",
          transaction_id: TRANSACTION_ID,
        },
        card_info: { card_number1: "4111", card_number4: "1111" },
      },
    });
    const request = gateway.onlyRequest();
    expect(request.url).toBe("/v1/payments/payment");
    expect(request.json).toEqual({
      ...ORDER,
      merchant: { mid: MID },
      buyer,
      tokenbilling: { token_id: "tok-1" },
    });
    gateway.server.reset();
    await gateway.expectRefused(() => seedClient.rebill("tok-1", ORDER), "buyer");
  });
});
