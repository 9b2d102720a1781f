import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPaymentGateway } from "../../../functions/adapters/outside/payment-gateway";
import { createGatewayContext } from "../../../functions/gateway/context";
import { DEFAULT_DECLINE_CODES } from "../../../functions/gateway/decline-codes";
import { computeFgkey, verifyQueryFgkey } from "../../../functions/gateway/fgkey";
import { createPaymentClient, type PaymentClient } from "../../../functions/gateway/payment-client";
import { classifyRescode } from "../../../functions/gateway/result";
import { parseStatusQuery } from "../../../functions/gateway/schemas/payment-window";
import {
  parseTransmissionTime,
  signWebhookBody,
  verifyWebhook,
  webhookAckReply,
} from "../../../functions/gateway/webhook-signature";
import { gatewayWebhookIntake, statusCallbackIntake } from "../../../functions/inbound/gateway-notices";
import {
  CALLBACKS,
  CANCEL_REQUEST_INTEGRATION,
  CHARGEBACK_WEBHOOK_BODY,
  ERRCODES,
  ERROR_CODES,
  READY_REQUEST_INTEGRATION,
  RETRIEVE_REQUEST_INTEGRATION,
  RETRIEVE_UNKNOWN_ORDER_RESPONSE,
  TEST_MERCHANT,
  TOKEN_DELETE_REQUEST_DOC,
  TOKEN_REBILL_REQUEST_DOC,
  TOKEN_REBILL_REQUEST_INTEGRATION,
  TOKEN_REBILL_RESPONSE_DOC,
  WEBHOOK_HEADERS,
  WEBHOOK_REPLY,
} from "../../fixtures/gateway-golden";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

// The client against the real gateway's published requests and answers (test/fixtures/gateway-golden.ts): what it
// sends must be what the gateway was sent, and what the gateway answered must read as what it meant.

let server: RecordingServer;
let client: PaymentClient;

beforeAll(async () => {
  server = await startRecordingServer();
  client = createPaymentClient(
    createGatewayContext({
      paymentBaseUrl: server.url,
      webhookAdminBaseUrl: server.url,
      partnerBaseUrl: server.url,
      mid: TEST_MERCHANT.mid,
      apiKey: TEST_MERCHANT.apiKey,
      aesKey: "0".repeat(64),
      readRetries: 0,
    }),
  );
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.respondWith(() => ({ json: { rescode: "0000", resmsg: "Success." } }));
});

/** The one request sent, its JSON body parsed. */
function sent() {
  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  if (!request) throw new Error("nothing sent");
  expect(request.headers.authorization).toBe(TEST_MERCHANT.authorization);
  return { ...request, json: request.body === "" ? undefined : JSON.parse(request.body) };
}

const withoutProduct = <T extends { product?: unknown }>({ product: _product, ...rest }: T) => rest;

describe("status_url callbacks as the gateway sends them", () => {
  it.each(CALLBACKS)("reads $name under the documented names", ({ query, expected }) => {
    const parsed = parseStatusQuery(query);
    if (!parsed.success) throw new Error(parsed.error.message);
    expect(parsed.data).toMatchObject(expected);
    // None of them carries the status the seed lists as required.
    expect(parsed.data.status).toBeUndefined();
  });

  it.each(CALLBACKS)("queues $name untouched: it carries no card data", ({ query }) => {
    const intake = statusCallbackIntake(query, new Date("2026-11-23T00:00:00.000Z"));
    expect(intake).toMatchObject({ ok: true, message: { kind: "status", query } });
  });

  const verifiable = CALLBACKS.filter((sample) => sample.testMerchant);

  it.each(verifiable)("recomputes the upper-case fgkey of $name", ({ query }) => {
    expect(verifyQueryFgkey(TEST_MERCHANT.fgkeySecret, query)).toBe(true);
    const params = new URLSearchParams(query);
    const published = params.get("fgkey");
    params.delete("fgkey");
    expect(computeFgkey(TEST_MERCHANT.fgkeySecret, Object.fromEntries(params)).toUpperCase()).toBe(published);
  });

  it.each(verifiable)("refuses $name with one value changed or one parameter added", ({ query }) => {
    const params = new URLSearchParams(query);
    const changed = new URLSearchParams(params);
    changed.set("rescode", params.get("rescode") === "0000" ? "0001" : "0000");
    expect(verifyQueryFgkey(TEST_MERCHANT.fgkeySecret, changed.toString())).toBe(false);
    expect(verifyQueryFgkey(TEST_MERCHANT.fgkeySecret, `${query}&status=SALE`)).toBe(false);
    expect(verifyQueryFgkey("another-secret", query)).toBe(false);
  });

  it("reads the declined callbacks' rescodes as refusals that need a new card", () => {
    for (const rescode of ["S023", "XXXX"]) {
      expect(classifyRescode(rescode, "declined", "read")).toMatchObject({ kind: "declined", code: rescode });
      expect(DEFAULT_DECLINE_CODES.deadCardRescodes).toContain(rescode);
    }
  });
});

describe("token billing requests and answers", () => {
  const REBILL = {
    order_id: TOKEN_REBILL_REQUEST_DOC.payment.order_id,
    token_id: "TOKEN_ID_1",
    amount: "1",
    currency: "USD",
    customer: { name: "eximbay", email: "test@eximbay.com" },
  };

  it("sends the token payment as the developer page does: the token in the path, the order in the body", async () => {
    server.respondWith(() => ({ json: TOKEN_REBILL_RESPONSE_DOC }));
    const outcome = await client.rebill("TOKEN_ID_1", { payment: TOKEN_REBILL_REQUEST_DOC.payment });
    const request = sent();
    expect(request).toMatchObject({ method: "POST", url: "/v1/payments/tokenbilling/TOKEN_ID_1/rebill" });
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
    // The page's sample also sends one blank product line; the product is optional and we send none.
    expect(request.json).toEqual(withoutProduct(TOKEN_REBILL_REQUEST_DOC));
    expect(outcome).toMatchObject({ kind: "success", value: TOKEN_REBILL_RESPONSE_DOC });
  });

  it("sends what an integration sends with a buyer, a language and other_param", async () => {
    const { payment, buyer, other_param } = TOKEN_REBILL_REQUEST_INTEGRATION;
    await client.rebill("TOKEN_ID_1", { payment, buyer, other_param });
    expect(sent().json).toEqual(withoutProduct(TOKEN_REBILL_REQUEST_INTEGRATION));
  });

  const ITEM = { name: "Pro", quantity: 3, unit_amount: "19.90" };

  it("names what a charge is for in one product line, linked to the merchant's page", async () => {
    server.respondWith(() => ({ json: TOKEN_REBILL_RESPONSE_DOC }));
    const link = "https://shop.example/pricing";
    await createPaymentGateway(client, { lang: "EN", productLink: link }).rebill({ ...REBILL, item: ITEM });
    expect(sent().json).toMatchObject({
      product: [{ name: "Pro", quantity: "3", unit_price: "19.90", link }],
    });
  });

  it("sends no product line without the merchant's page to link it to", async () => {
    server.respondWith(() => ({ json: TOKEN_REBILL_RESPONSE_DOC }));
    await createPaymentGateway(client, { lang: "EN" }).rebill({ ...REBILL, item: ITEM });
    expect(sent().json).not.toHaveProperty("product");
  });

  it("reads the published answer, which has no status, as a sale", async () => {
    server.respondWith(() => ({ json: TOKEN_REBILL_RESPONSE_DOC }));
    const outcome = await createPaymentGateway(client, { lang: "EN" }).rebill(REBILL);
    expect(outcome).toEqual({ kind: "success", value: { transaction_id: "EN" } });
  });

  it.each([
    [{ rescode: "1001", resmsg: "Declined", errcode: "EXPIRED_CARD" }, "card_required"],
    [{ rescode: "S023", resmsg: "Expired card" }, "card_required"],
    [{ rescode: "TK01", resmsg: "Token expired" }, "token_expired"],
    [{ rescode: "TK02", resmsg: "Token revoked" }, "token_revoked"],
    [{ rescode: "1001", resmsg: "Declined", errcode: "INSUFFICIENT_FUNDS" }, undefined],
  ])("tells the core whether a refused token payment (%o) can ever succeed: %s", async (answer, deadEnd) => {
    server.respondWith(() => ({ json: answer }));
    const outcome = await createPaymentGateway(client, { lang: "EN" }).rebill(REBILL);
    expect(outcome).toMatchObject({ kind: "declined", code: answer.rescode });
    expect(outcome.kind === "declined" ? outcome.deadEnd : outcome.kind).toBe(deadEnd);
  });

  it("judges refusals by the merchant's own decline codes", async () => {
    server.respondWith(() => ({
      json: { rescode: "1001", resmsg: "Declined", errcode: "INSUFFICIENT_FUNDS" },
    }));
    const codes = {
      ...DEFAULT_DECLINE_CODES,
      deadCardErrcodes: ["INSUFFICIENT_FUNDS"],
      tokenRevokedCodes: [],
    };
    const gateway = createPaymentGateway(client, { lang: "EN", declineCodes: codes });
    expect(await gateway.rebill(REBILL)).toMatchObject({ kind: "declined", deadEnd: "card_required" });
    server.respondWith(() => ({ json: { rescode: "TK02", resmsg: "Token revoked" } }));
    const revoked = await gateway.rebill(REBILL);
    expect(revoked.kind === "declined" ? revoked.deadEnd : revoked.kind).toBeUndefined();
  });

  it("deletes a token with the page's empty body", async () => {
    expect((await client.deleteToken("TOKEN_ID_1")).kind).toBe("success");
    expect(sent()).toMatchObject({
      method: "POST",
      url: "/v1/payments/tokenbilling/TOKEN_ID_1/delete",
      json: TOKEN_DELETE_REQUEST_DOC,
    });
  });
});

describe("window, retrieve and cancel requests", () => {
  it("prepares a window with the body an integration sent", async () => {
    server.respondWith(() => ({ json: { rescode: "0000", resmsg: "Success.", fgkey: "A".repeat(64) } }));
    const { merchant: _merchant, payment, ...input } = READY_REQUEST_INTEGRATION;
    const outcome = await client.ready({ ...input, payment: { ...payment, transaction_type: "PAYMENT" } });
    expect(sent()).toMatchObject({ url: "/v1/payments/ready", json: READY_REQUEST_INTEGRATION });
    // What the page hands EXIMBAY.request_pay: the fgkey plus exactly the body ready was sent.
    expect(outcome).toMatchObject({
      kind: "success",
      value: {
        launch: {
          sdk_url: `${server.url}/v1/javascriptSDK.js`,
          request_pay: { ...READY_REQUEST_INTEGRATION, fgkey: "A".repeat(64) },
        },
      },
    });
    expect(outcome.kind === "success" && Object.keys(outcome.value.launch.request_pay).sort()).toEqual(
      [...Object.keys(READY_REQUEST_INTEGRATION), "fgkey"].sort(),
    );
  });

  it("retrieves with the body an integration sent", async () => {
    const { mid: _mid, ...input } = RETRIEVE_REQUEST_INTEGRATION;
    await client.retrieve({ ...input, key_field: "transaction_id" });
    expect(sent()).toMatchObject({ url: "/v1/payments/retrieve", json: RETRIEVE_REQUEST_INTEGRATION });
  });

  it("reads retrieve's Q004 for an order the gateway never saw as status NONE: no transaction exists (state none)", async () => {
    server.respondWith(() => ({ json: RETRIEVE_UNKNOWN_ORDER_RESPONSE }));
    const gateway = createPaymentGateway(client, { lang: "EN" });
    expect(await gateway.findOrder({ order_id: "sub_x-1-0", amount: "1", currency: "USD" })).toEqual({
      kind: "success",
      value: { state: "none", transaction_id: undefined },
    });
  });

  it("cancels with the body an integration sent", async () => {
    const { transactionId, body } = CANCEL_REQUEST_INTEGRATION;
    const { mid: _mid, ...input } = body;
    server.respondWith(() => ({ json: { rescode: "0000", resmsg: "Success." } }));
    await client.cancel(transactionId, { ...input, refund: { ...input.refund, refund_type: "F" } });
    expect(sent()).toMatchObject({ url: `/v1/payments/${transactionId}/cancel`, json: body });
  });
});

describe("the CHARGEBACK webhook", () => {
  const SECRET = "whsec-golden-test";
  const sentAt = parseTransmissionTime(WEBHOOK_HEADERS.transmissionTimeExample);

  it("reads the example transmission time as Korea time", () => {
    expect(sentAt?.toISOString()).toBe("2024-11-13T05:04:34.178Z");
  });

  it("verifies a delivery under the real header names, with the default settings", () => {
    const headers = {
      [WEBHOOK_HEADERS.signature]: signWebhookBody(CHARGEBACK_WEBHOOK_BODY, SECRET),
      [WEBHOOK_HEADERS.transmissionTime]: WEBHOOK_HEADERS.transmissionTimeExample,
    };
    const now = sentAt ?? new Date(0);
    expect(verifyWebhook({ rawBody: CHARGEBACK_WEBHOOK_BODY, headers, secrets: [SECRET], now })).toEqual({
      ok: true,
    });
  });

  it("reads the chargeback's ids and lifecycle from the body", () => {
    expect(gatewayWebhookIntake(CHARGEBACK_WEBHOOK_BODY, new Date("2025-03-20T01:00:00.000Z"))).toEqual({
      ok: true,
      message: {
        kind: "gateway",
        type: "CHARGEBACK",
        order_id: "20241108113100",
        transaction_id: "11E11A11DDW000000000000",
        chargeback: {
          status: "DEDUCTION",
          reason: "deduct 테스트",
          report_date: "20250320",
          deadline: "20250410",
        },
        received_at: "2025-03-20T01:00:00.000Z",
      },
    });
  });

  it("answers exactly what stops the gateway's re-sends", () => {
    expect(webhookAckReply()).toEqual(JSON.parse(WEBHOOK_REPLY));
  });
});

describe("error codes", () => {
  it("reads request errors as invalid, communication and internal errors as transient, risk checks as refusals", () => {
    for (const code of ERROR_CODES.invalidRequest) {
      expect(classifyRescode(code, "", "mutation").kind, code).toBe("invalid");
    }
    for (const code of ERROR_CODES.transient) {
      expect(classifyRescode(code, "", "mutation").kind, code).toBe("unknown");
      expect(classifyRescode(code, "", "read").kind, code).toBe("unavailable");
    }
    for (const code of ERROR_CODES.riskCheck) {
      expect(classifyRescode(code, "", "mutation").kind, code).toBe("declined");
    }
  });

  it("keeps every v2 errcode on the refusal, and reads TEMPORARY_ERROR as transient", () => {
    for (const errcode of ERRCODES.filter((name) => name !== "TEMPORARY_ERROR")) {
      expect(classifyRescode("1001", "", "mutation", errcode)).toEqual({
        kind: "declined",
        code: "1001",
        message: "",
        errcode,
      });
    }
    expect(classifyRescode("1001", "", "mutation", "TEMPORARY_ERROR").kind).toBe("unknown");
  });

  it("names only published reasons as dead cards (and the corrected spelling of INVAILD_CARD_DATA)", () => {
    const published: readonly string[] = ERRCODES;
    for (const errcode of DEFAULT_DECLINE_CODES.deadCardErrcodes) {
      expect(published.includes(errcode) || errcode === "INVALID_CARD_DATA", errcode).toBe(true);
    }
    for (const soft of [
      "INSUFFICIENT_FUNDS",
      "GENERIC_DECLINE",
      "CONTACT_CARD_ISSUER",
      "CARD_VELOCITY_EXCEEDED",
    ]) {
      expect(DEFAULT_DECLINE_CODES.deadCardErrcodes).not.toContain(soft);
    }
  });
});
