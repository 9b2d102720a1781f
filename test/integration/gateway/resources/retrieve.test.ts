import { describe, expect, it } from "vitest";
import { MID, OK, PAYMENT, paymentApiServer, TRANSACTION_ID } from "../../../support/payment-api-server";

const gateway = paymentApiServer();

describe("retrieve", () => {
  it("sends key_field (transaction_id by default) and normalises cardno1/cardno4", async () => {
    const record = {
      status: "SALE",
      ...PAYMENT,
      transaction_id: TRANSACTION_ID,
      transaction_date: "20300115080000",
    };
    gateway.answer({ ...OK, mid: MID, payment: record, card_info: { cardno1: "4111", cardno4: "1111" } });
    const outcome = await gateway.client.retrieve({
      payment: { ...PAYMENT, transaction_id: TRANSACTION_ID },
    });
    expect(outcome).toMatchObject({
      kind: "success",
      value: { card_info: { card_number1: "4111", card_number4: "1111" } },
    });
    const request = gateway.onlyRequest();
    expect(request.url).toBe("/v1/payments/retrieve");
    expect(request.json).toEqual({
      mid: MID,
      key_field: "transaction_id",
      payment: { ...PAYMENT, transaction_id: TRANSACTION_ID },
    });
  });

  it("reads Q004 (no such order) as a finding: status NONE, with or without the payment record", async () => {
    for (const reply of [
      {
        rescode: "Q004",
        resmsg: "No Transaction",
        mid: MID,
        payment: { status: "NONE", order_id: PAYMENT.order_id },
      },
      { rescode: "Q004", resmsg: "No Transaction" },
    ]) {
      gateway.answer(reply);
      expect(await gateway.client.retrieve({ key_field: "order_id", payment: PAYMENT })).toEqual({
        kind: "success",
        value: { rescode: "Q004", resmsg: "No Transaction", mid: MID, payment: { status: "NONE" } },
      });
    }
  });

  it("classifies the gateway's transient codes as unavailable, and retries them as reads", async () => {
    for (const rescode of ["EM00", "EX1000", "EX99", "EE02", "EEEE"]) {
      gateway.server.reset();
      gateway.answer({ rescode, resmsg: "Internal server error" });
      const outcome = await gateway.client.retrieve({ key_field: "order_id", payment: PAYMENT });
      expect(outcome, rescode).toMatchObject({ kind: "unavailable" });
      expect(gateway.server.requests, rescode).toHaveLength(3);
    }
  });

  it("refuses invalid requests without sending", async () => {
    await gateway.expectRefused(
      () => gateway.client.retrieve({ payment: PAYMENT }),
      "payment.transaction_id",
    );
    await gateway.expectRefused(
      () =>
        gateway.client.retrieve({
          key_field: "refund_id",
          payment: { ...PAYMENT, transaction_id: TRANSACTION_ID },
        }),
      "payment.refund_id",
    );
  });
});

describe("receiptUrl", () => {
  it("posts mid and e-mail to the transaction's receipt path", async () => {
    gateway.answer({ ...OK, url: "https://receipt.example/1" });
    const outcome = await gateway.client.receiptUrl(TRANSACTION_ID, { email: "ada@example.com" });
    expect(outcome).toMatchObject({ kind: "success", value: { receipt_url: "https://receipt.example/1" } });
    const request = gateway.onlyRequest();
    expect(request.url).toBe(`/v1/payments/retrieve/receipt-url/${TRANSACTION_ID}`);
    expect(request.json).toEqual({ mid: MID, email: "ada@example.com" });
  });

  it("refuses invalid requests without sending", async () => {
    await gateway.expectRefused(
      () => gateway.client.receiptUrl("short", { email: "ada@example.com" }),
      "transaction_id",
    );
    await gateway.expectRefused(() => gateway.client.receiptUrl(TRANSACTION_ID, { email: "nope" }), "email");
  });
});
