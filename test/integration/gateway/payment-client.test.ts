import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decryptField } from "../../../functions/gateway/card-crypto";
import { createGatewayContext } from "../../../functions/gateway/context";
import { GatewayRequestError } from "../../../functions/gateway/errors";
import { createPaymentClient, type PaymentClient } from "../../../functions/gateway/payment-client";
import type { PaymentInput, ReadyInput } from "../../../functions/gateway/schemas/payment";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

// Test-only credentials; nothing real.
const MID = "MID0000001";
const API_KEY = "test-api-key";
const KEY = {
  key: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
  iv: "Eximbay_AES_256_",
};
const TODAY = new Date("2030-01-15T08:00:00Z");
const TRANSACTION_ID = "TX0123456789ABCDEFGHIJKL";
const CARD = { card_number: "4111111111111111", expiry_date: "203012", cvc: "737" };
const OK = { rescode: "0000", resmsg: "Success." };

let server: RecordingServer;
let client: PaymentClient;

beforeAll(async () => {
  server = await startRecordingServer();
  const context = createGatewayContext(
    {
      paymentBaseUrl: `${server.url}/`,
      webhookAdminBaseUrl: server.url,
      partnerBaseUrl: server.url,
      mid: MID,
      apiKey: API_KEY,
      aesKey: KEY.key,
      readRetries: 2,
      readRetryMinDelayMs: 1,
    },
    { now: () => TODAY },
  );
  client = createPaymentClient(context);
});

afterAll(() => server.close());

beforeEach(() => {
  server.reset();
  server.respondWith(() => ({ json: OK }));
});

/** Answers every request with this JSON. */
function answer(json: unknown): void {
  server.respondWith(() => ({ json }));
}

/** The one request the server received, with its JSON body. */
function onlyRequest() {
  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  if (!request) throw new Error("no request");
  return { ...request, json: JSON.parse(request.body) };
}

/** Asserts the call was refused before sending, naming the field. */
async function expectRefused(call: () => Promise<unknown>, field: string): Promise<GatewayRequestError> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof GatewayRequestError))
    throw new Error(`expected a GatewayRequestError, got ${String(error)}`);
  expect(error.field).toBe(field);
  expect(server.requests).toHaveLength(0);
  return error;
}

const PAYMENT = { order_id: "sub1-203001-1", currency: "USD", amount: "10.00", lang: "EN" };
const READY: ReadyInput = {
  payment: { ...PAYMENT, transaction_type: "PAYMENT" },
  url: { return_url: "https://shop.example/return", status_url: "https://shop.example/status" },
  buyer: { name: "Ada", email: "ada@example.com" },
  tokenbilling: { token_creation: "Y" },
};

describe("transport contract", () => {
  it("posts JSON with Basic auth built from the API key and an empty password", async () => {
    answer({ ...OK, fgkey: "F00D" });
    await client.ready(READY);
    const request = onlyRequest();
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/v1/payments/ready");
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}`);
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
  });

  it.each([
    [
      { rescode: "1001", resmsg: "Declined" },
      { kind: "declined", code: "1001" },
    ],
    [
      { rescode: "EC00", resmsg: "Invalid parameter" },
      { kind: "invalid", code: "EC00" },
    ],
    [{ rescode: "EX00", resmsg: "Internal" }, { kind: "unknown" }],
  ])("classifies a mutation answered %j", async (reply, outcome) => {
    answer(reply);
    expect(await client.ready(READY)).toMatchObject(outcome);
    expect(server.requests).toHaveLength(1);
  });

  it("retries a read while the gateway is unavailable, never a mutation", async () => {
    answer({ rescode: "EX00", resmsg: "Internal" });
    const retrieved = await client.retrieve({ key_field: "order_id", payment: PAYMENT });
    expect(retrieved.kind).toBe("unavailable");
    expect(server.requests).toHaveLength(3);
    server.reset();
    expect((await client.capture(TRANSACTION_ID, { payment: PAYMENT })).kind).toBe("unknown");
    expect(server.requests).toHaveLength(1);
  });
});

describe("ready", () => {
  it("injects merchant.mid and returns the fgkey, with what the page hands the SDK", async () => {
    answer({ ...OK, fgkey: "F00D" });
    const outcome = await client.ready({ ...READY, merchant: { shop: "Shop" } });
    const sent = { ...READY, merchant: { shop: "Shop", mid: MID } };
    expect(onlyRequest().json).toEqual(sent);
    expect(outcome).toEqual({
      kind: "success",
      value: {
        ...OK,
        fgkey: "F00D",
        // The base URL's trailing slash is not doubled.
        launch: { sdk_url: `${server.url}/v1/javascriptSDK.js`, request_pay: { ...sent, fgkey: "F00D" } },
      },
    });
  });

  it("refuses invalid requests without sending", async () => {
    await expectRefused(
      () => client.ready({ ...READY, payment: { ...READY.payment, amount: "-1" } }),
      "payment.amount",
    );
    await expectRefused(
      () =>
        client.ready({
          ...READY,
          recurring: { recurring_amount: "10", recurring_start_date: "20300115", recurring_interval: "1" },
        }),
      "recurring.recurring_start_date",
    );
    await expectRefused(
      () =>
        client.ready({
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
    answer({ ...OK, mid: MID, payment: { ...payment, status: "Sale" }, foreign: { foregin_amount: "1" } });
    const outcome = await client.confirm(CONFIRM);
    expect(outcome).toMatchObject({
      kind: "success",
      value: { payment: { status: "SALE" }, foreign: { foreign_amount: "1" } },
    });
    const request = onlyRequest();
    expect(request.url).toBe("/v1/payments/confirm");
    expect(request.json).toEqual({ ...CONFIRM, mid: MID });
  });

  it("refuses invalid requests without sending", async () => {
    const untyped: unknown = { ...CONFIRM, transaction_type: "PAYMENT" };
    // @ts-expect-error: a caller without types; the runtime check is under test
    await expectRefused(() => client.confirm(untyped), "transaction_type");
    await expectRefused(
      () => client.confirm({ ...CONFIRM, payment: { ...PAYMENT, payer_auth_id: "" } }),
      "payment.payer_auth_id",
    );
  });
});

describe("verify", () => {
  it("sends the query string untouched as data, with no mid added", async () => {
    const query = "ver=230&mid=MID0000001&fgkey=AB%2BC&resmsg=Success.";
    expect(await client.verify(query)).toEqual({ kind: "success", value: OK });
    const request = onlyRequest();
    expect(request.url).toBe("/v1/payments/verify");
    expect(request.json).toEqual({ data: query });
  });

  it("refuses an empty query and reports a rejection as declined", async () => {
    await expectRefused(() => client.verify(""), "data");
    answer({ rescode: "1101", resmsg: "fgkey mismatch" });
    expect(await client.verify("a=1")).toMatchObject({ kind: "declined", code: "1101" });
  });
});

describe("retrieve", () => {
  it("sends key_field (transaction_id by default) and normalises cardno1/cardno4", async () => {
    const record = {
      status: "SALE",
      ...PAYMENT,
      transaction_id: TRANSACTION_ID,
      transaction_date: "20300115080000",
    };
    answer({ ...OK, mid: MID, payment: record, card_info: { cardno1: "4111", cardno4: "1111" } });
    const outcome = await client.retrieve({ payment: { ...PAYMENT, transaction_id: TRANSACTION_ID } });
    expect(outcome).toMatchObject({
      kind: "success",
      value: { card_info: { card_number1: "4111", card_number4: "1111" } },
    });
    const request = onlyRequest();
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
      answer(reply);
      expect(await client.retrieve({ key_field: "order_id", payment: PAYMENT })).toEqual({
        kind: "success",
        value: { rescode: "Q004", resmsg: "No Transaction", mid: MID, payment: { status: "NONE" } },
      });
    }
  });

  it("classifies the gateway's transient codes as unavailable, and retries them as reads", async () => {
    for (const rescode of ["EM00", "EX1000", "EX99", "EE02", "EEEE"]) {
      server.reset();
      answer({ rescode, resmsg: "Internal server error" });
      const outcome = await client.retrieve({ key_field: "order_id", payment: PAYMENT });
      expect(outcome, rescode).toMatchObject({ kind: "unavailable" });
      expect(server.requests, rescode).toHaveLength(3);
    }
  });

  it("refuses invalid requests without sending", async () => {
    await expectRefused(() => client.retrieve({ payment: PAYMENT }), "payment.transaction_id");
    await expectRefused(
      () =>
        client.retrieve({ key_field: "refund_id", payment: { ...PAYMENT, transaction_id: TRANSACTION_ID } }),
      "payment.refund_id",
    );
  });
});

describe("receiptUrl", () => {
  it("posts mid and e-mail to the transaction's receipt path", async () => {
    answer({ ...OK, url: "https://receipt.example/1" });
    const outcome = await client.receiptUrl(TRANSACTION_ID, { email: "ada@example.com" });
    expect(outcome).toMatchObject({ kind: "success", value: { receipt_url: "https://receipt.example/1" } });
    const request = onlyRequest();
    expect(request.url).toBe(`/v1/payments/retrieve/receipt-url/${TRANSACTION_ID}`);
    expect(request.json).toEqual({ mid: MID, email: "ada@example.com" });
  });

  it("refuses invalid requests without sending", async () => {
    await expectRefused(() => client.receiptUrl("short", { email: "ada@example.com" }), "transaction_id");
    await expectRefused(() => client.receiptUrl(TRANSACTION_ID, { email: "nope" }), "email");
  });
});

describe("cancel", () => {
  const CANCEL = {
    refund: { refund_type: "P", refund_amount: "4.00", refund_id: "r-1", reason: "requested" },
    payment: { ...PAYMENT, balance: "10.00" },
  } as const;
  const RESPONSE = {
    ...OK,
    mid: MID,
    refund: {
      refund_amount: "4.00",
      refund_id: "r-1",
      refund_date: "20300115080000",
      refund_transaction_id: "RT1",
    },
    payment: { ...PAYMENT, transaction_id: TRANSACTION_ID, balance: "6.00", payment_method: "P000" },
    foreign: { foregin_currency: "KRW", foregin_amount: "5000", foregin_rate: "1250" },
  };

  it("posts to the transaction's cancel path and reads foregin_* as foreign_*", async () => {
    answer(RESPONSE);
    const outcome = await client.cancel(TRANSACTION_ID, CANCEL);
    expect(outcome).toMatchObject({
      kind: "success",
      value: { foreign: { foreign_currency: "KRW", foreign_amount: "5000", foreign_rate: "1250" } },
    });
    const request = onlyRequest();
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/cancel`);
    expect(request.json).toEqual({ ...CANCEL, mid: MID });
  });

  it("refuses invalid requests without sending", async () => {
    await expectRefused(() => client.cancel(`${TRANSACTION_ID}X`, CANCEL), "transaction_id");
    await expectRefused(
      () =>
        client.cancel(TRANSACTION_ID, { ...CANCEL, refund: { ...CANCEL.refund, refund_amount: "10.01" } }),
      "refund.refund_amount",
    );
    await expectRefused(
      () => client.cancel(TRANSACTION_ID, CANCEL, { fundingKind: "virtual_account" }),
      "refund_account",
    );
  });
});

describe("capture and settle", () => {
  it("captures and reads allowed_pvoid", async () => {
    const captured = {
      ...PAYMENT,
      transaction_id: TRANSACTION_ID,
      captured_date: "20300115080000",
      allowed_pvoid: "Y",
    };
    answer({ ...OK, mid: MID, payment: captured });
    const outcome = await client.capture(TRANSACTION_ID, { payment: PAYMENT });
    expect(outcome).toMatchObject({ kind: "success", value: { payment: { partially_cancelable: "Y" } } });
    const request = onlyRequest();
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/capture`);
    expect(request.json).toEqual({ mid: MID, payment: PAYMENT });
  });

  it("settles", async () => {
    const { lang: _lang, ...settlePayment } = PAYMENT;
    const settled = { ...settlePayment, transaction_id: TRANSACTION_ID, settled_date: "20300115080000" };
    answer({ ...OK, mid: MID, payment: settled });
    expect(await client.settle(TRANSACTION_ID, { payment: settlePayment })).toEqual({
      kind: "success",
      value: { ...OK, mid: MID, payment: settled },
    });
    const request = onlyRequest();
    expect(request.url).toBe(`/v1/payments/${TRANSACTION_ID}/settle`);
    expect(request.json).toEqual({ mid: MID, payment: settlePayment });
  });

  it("refuses invalid requests without sending", async () => {
    await expectRefused(
      () => client.capture(TRANSACTION_ID, { payment: { ...PAYMENT, lang: "" } }),
      "payment.lang",
    );
    await expectRefused(() => client.capture("", { payment: PAYMENT }), "transaction_id");
    await expectRefused(() => client.settle(TRANSACTION_ID, { payment: PAYMENT }), "payment"); // lang is not a settle field
    await expectRefused(
      () => client.settle(TRANSACTION_ID, { payment: { order_id: "o", currency: "usd", amount: "1" } }),
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
    answer(CHARGED);
    const outcome = await client.payment(INPUT);
    expect(outcome).toMatchObject({
      kind: "success",
      value: { token_id: "tok-1", card_number1: "4111", card_number4: "1111" },
    });
    const request = onlyRequest();
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
    answer(CHARGED);
    const walletData = { token: "wallet-payload", network: "x" };
    const { card: _card, tokenbilling: _token, ...withoutCard } = INPUT;
    await client.payment({ ...withoutCard, wallet_a: { payment_data: walletData, use_network: "Y" } });
    const { wallet_a } = onlyRequest().json;
    expect(wallet_a.use_network).toBe("Y");
    expect(JSON.parse(decryptField(wallet_a.payment_data, KEY) ?? "")).toEqual(walletData);
  });

  it("classifies a decline and an internal error (unknown: never retried)", async () => {
    answer({ rescode: "1001", resmsg: "Card declined" });
    expect(await client.payment(INPUT)).toEqual({ kind: "declined", code: "1001", message: "Card declined" });
    answer({ rescode: "EX00", resmsg: "Internal" });
    expect((await client.payment(INPUT)).kind).toBe("unknown");
    expect(server.requests).toHaveLength(2);
  });

  it("refuses a bad card without sending and without any digit of it in the error", async () => {
    const bad = { ...CARD, card_number: "4111111111111112" };
    const error = await expectRefused(() => client.payment({ ...INPUT, card: bad }), "card.card_number");
    expect(error.message).not.toMatch(/\d/);
    expect(JSON.stringify(error)).not.toMatch(/\d/);
    await expectRefused(() => client.payment({ ...INPUT, card: { ...CARD, cvc: "12" } }), "card.cvc");
  });

  it("refuses a token rebill mixed with card data or token creation", async () => {
    await expectRefused(
      () => client.payment({ ...INPUT, tokenbilling: { token_id: "tok-1" } }),
      "tokenbilling.token_id",
    );
    const { card: _card, ...order } = INPUT;
    await expectRefused(
      () => client.payment({ ...order, tokenbilling: { token_id: "tok-1", unique_token_id: "Y" } }),
      "tokenbilling.unique_token_id",
    );
  });
});

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
    answer(REBILLED);
    const outcome = await client.rebill("tok/1", {
      ...ORDER,
      buyer: { name: "Ada", email: "ada@example.com" },
    });
    expect(outcome).toEqual({ kind: "success", value: { ...REBILLED, errcode: undefined, mid: undefined } });
    const request = onlyRequest();
    expect(request).toMatchObject({ method: "POST", url: "/v1/payments/tokenbilling/tok%2F1/rebill" });
    expect(request.json).toEqual({
      ...ORDER,
      merchant: { mid: MID },
      buyer: { name: "Ada", email: "ada@example.com" },
    });
  });

  it("classifies a rebill's refusal with its v2 errcode, and a transient error as unknown (never resent)", async () => {
    answer({ rescode: "1001", resmsg: "Declined", errcode: "STOLEN_OR_LOST_CARD" });
    expect(await client.rebill("tok-1", ORDER)).toEqual({
      kind: "declined",
      code: "1001",
      message: "Declined",
      errcode: "STOLEN_OR_LOST_CARD",
    });
    for (const rescode of ["EM00", "EX1000", "EE99"]) {
      answer({ rescode, resmsg: "try again later" });
      expect((await client.rebill("tok-1", ORDER)).kind, rescode).toBe("unknown");
    }
    answer({ rescode: "9999", resmsg: "later", errcode: "TEMPORARY_ERROR" });
    expect((await client.rebill("tok-1", ORDER)).kind).toBe("unknown");
    expect(server.requests).toHaveLength(5);
  });

  it("refuses a bad token or order without sending", async () => {
    await expectRefused(() => client.rebill("", ORDER), "token_id");
    await expectRefused(
      () => client.rebill("tok-1", { payment: { ...ORDER.payment, amount: "1,000" } }),
      "payment.amount",
    );
  });

  it("deletes a token with an empty JSON body, and inquires with GET", async () => {
    expect(await client.deleteToken("tok-1")).toEqual({ kind: "success", value: OK });
    expect(onlyRequest()).toMatchObject({
      method: "POST",
      url: "/v1/payments/tokenbilling/tok-1/delete",
      json: {},
    });
    server.reset();
    answer({ ...OK, card_info: { card_holder: "ADA", cardno1: "4111", cardno4: "1111" } });
    expect(await client.inquireToken("tok-1")).toMatchObject({
      kind: "success",
      value: { rescode: "0000", card_info: { card_number1: "4111", card_number4: "1111" } },
    });
    const [inquiry] = server.requests;
    expect(server.requests).toHaveLength(1);
    expect(inquiry).toMatchObject({ method: "GET", url: "/v1/payments/tokenbilling/tok-1", body: "" });
    expect(inquiry?.headers.authorization).toBe(`Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}`);
  });

  it("keeps the seed's form by configuration: the non-ui payment with tokenbilling.token_id", async () => {
    const seedClient = createPaymentClient(
      createGatewayContext(
        {
          paymentBaseUrl: server.url,
          webhookAdminBaseUrl: server.url,
          partnerBaseUrl: server.url,
          mid: MID,
          apiKey: API_KEY,
          aesKey: KEY.key,
          rebillEndpoint: "payment",
        },
        { now: () => TODAY },
      ),
    );
    answer({
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
    const request = onlyRequest();
    expect(request.url).toBe("/v1/payments/payment");
    expect(request.json).toEqual({
      ...ORDER,
      merchant: { mid: MID },
      buyer,
      tokenbilling: { token_id: "tok-1" },
    });
    server.reset();
    await expectRefused(() => seedClient.rebill("tok-1", ORDER), "buyer");
  });
});

describe("recurring", () => {
  it("deletes with mid and adjusts with adjust_amount", async () => {
    expect(await client.deleteRecurring("REC-1")).toEqual({ kind: "success", value: OK });
    expect(onlyRequest()).toMatchObject({ url: "/v1/payments/recurring/REC-1/delete", json: { mid: MID } });
    server.reset();
    expect(await client.adjustRecurring("REC-1", { adjust_amount: "12.50" })).toEqual({
      kind: "success",
      value: OK,
    });
    expect(onlyRequest()).toMatchObject({
      url: "/v1/payments/recurring/REC-1/adjust",
      json: { adjust_amount: "12.50" },
    });
  });

  it("refuses invalid requests without sending", async () => {
    await expectRefused(() => client.deleteRecurring("R".repeat(21)), "recurring_id");
    await expectRefused(() => client.adjustRecurring("", { adjust_amount: "1" }), "recurring_id");
    await expectRefused(() => client.adjustRecurring("REC-1", { adjust_amount: "1.005" }), "adjust_amount");
  });
});
