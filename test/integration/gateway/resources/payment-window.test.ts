import { describe, expect, it } from "vitest";
import type { ReadyInput } from "../../../../functions/gateway/schemas/payment-window";
import { MID, OK, PAYMENT, paymentApiServer, TRANSACTION_ID } from "../../../support/payment-api-server";

const gateway = paymentApiServer();

const READY: ReadyInput = {
  payment: { ...PAYMENT, transaction_type: "PAYMENT" },
  url: { return_url: "https://shop.example/return", status_url: "https://shop.example/status" },
  buyer: { name: "Ada", email: "ada@example.com" },
  tokenbilling: { token_creation: "Y" },
};

describe("ready", () => {
  it("injects merchant.mid and returns the fgkey, with what the page hands the SDK", async () => {
    gateway.answer({ ...OK, fgkey: "F00D" });
    const outcome = await gateway.client.ready({ ...READY, merchant: { shop: "Shop" } });
    const sent = { ...READY, merchant: { shop: "Shop", mid: MID } };
    expect(gateway.onlyRequest().json).toEqual(sent);
    expect(outcome).toEqual({
      kind: "success",
      value: {
        ...OK,
        fgkey: "F00D",
        // The base URL's trailing slash is not doubled.
        launch: {
          sdk_url: `${gateway.server.url}/v1/javascriptSDK.js`,
          request_pay: { ...sent, fgkey: "F00D" },
        },
      },
    });
  });

  it("refuses invalid requests without sending", async () => {
    await gateway.expectRefused(
      () => gateway.client.ready({ ...READY, payment: { ...READY.payment, amount: "-1" } }),
      "payment.amount",
    );
    await gateway.expectRefused(
      () =>
        gateway.client.ready({
          ...READY,
          recurring: { recurring_amount: "10", recurring_start_date: "20300115", recurring_interval: "1" },
        }),
      "recurring.recurring_start_date",
    );
    await gateway.expectRefused(
      () =>
        gateway.client.ready({
          ...READY,
          settings: { site_foreign_currency: "JPY" },
          payment: { ...READY.payment, payment_method: "P101" },
        }),
      "payment.payment_method",
    );
  });
});

describe("confirm", () => {
  const CONFIRM = { transaction_type: "PAYMENT_PA", payment: { ...PAYMENT, payer_auth_id: "PA1" } } as const;

  it("injects mid and parses the payment fields", async () => {
    const payment = {
      ...PAYMENT,
      email: "ada@example.com",
      transaction_id: TRANSACTION_ID,
      transaction_date: "20300115080000",
    };
    gateway.answer({
      ...OK,
      mid: MID,
      payment: { ...payment, status: "Sale" },
      foreign: { foregin_amount: "1" },
    });
    const outcome = await gateway.client.confirm(CONFIRM);
    expect(outcome).toMatchObject({
      kind: "success",
      value: { payment: { status: "SALE" }, foreign: { foreign_amount: "1" } },
    });
    const request = gateway.onlyRequest();
    expect(request.url).toBe("/v1/payments/confirm");
    expect(request.json).toEqual({ ...CONFIRM, mid: MID });
  });

  it("refuses invalid requests without sending", async () => {
    const untyped: unknown = { ...CONFIRM, transaction_type: "PAYMENT" };
    // @ts-expect-error: a caller without types; the runtime check is under test
    await gateway.expectRefused(() => gateway.client.confirm(untyped), "transaction_type");
    await gateway.expectRefused(
      () => gateway.client.confirm({ ...CONFIRM, payment: { ...PAYMENT, payer_auth_id: "" } }),
      "payment.payer_auth_id",
    );
  });
});

describe("verify", () => {
  it("sends the query string untouched as data, with no mid added", async () => {
    const query = "ver=230&mid=MID0000001&fgkey=AB%2BC&resmsg=Success.";
    expect(await gateway.client.verify(query)).toEqual({ kind: "success", value: OK });
    const request = gateway.onlyRequest();
    expect(request.url).toBe("/v1/payments/verify");
    expect(request.json).toEqual({ data: query });
  });

  it("refuses an empty query and reports a rejection as declined", async () => {
    await gateway.expectRefused(() => gateway.client.verify(""), "data");
    gateway.answer({ rescode: "1101", resmsg: "fgkey mismatch" });
    expect(await gateway.client.verify("a=1")).toMatchObject({ kind: "declined", code: "1101" });
  });
});
