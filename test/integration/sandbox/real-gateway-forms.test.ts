import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseStatusQuery } from "../../../functions/gateway/schemas/payment-window";
import { summarizeCard } from "../../../sandbox/acquirer/cards";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../../sandbox/server";
import { carriesValidFgkey, fgkeyOf } from "../../../sandbox/shared/gateway-crypto";
import type { MerchantInput } from "../../../sandbox/state/merchant-config";
import {
  CALLBACKS,
  CANCEL_REQUEST_INTEGRATION,
  TEST_MERCHANT as PUBLISHED_MERCHANT,
  READY_REQUEST_INTEGRATION,
  RETRIEVE_REQUEST_INTEGRATION,
  TOKEN_REBILL_REQUEST_DOC,
  TOKEN_REBILL_REQUEST_INTEGRATION,
} from "../../fixtures/gateway-golden";
import {
  CARDS,
  card,
  order,
  type PaymentHarness,
  startPaymentHarness,
  succeeded,
} from "../../support/payment-sandbox";
import { recordPayment } from "../../support/sandbox-gateway";

// The sandbox against the real gateway's published requests and answers (test/fixtures/gateway-golden.ts), and its
// real-form callbacks: what the gateway accepts it accepts, and what the gateway sends it sends.

const START = new Date("2026-03-10T00:00:00.000Z");

/** The published test merchant, as a sandbox merchant (its published API key; the other keys the sandbox's). */
const PUBLISHED: MerchantInput = {
  mid: PUBLISHED_MERCHANT.mid,
  apiKey: PUBLISHED_MERCHANT.apiKey,
  aesKeyHex: "ab".repeat(32),
  webhookSecret: "published_merchant_webhook_secret",
  partnerApiKey: "published_merchant_partner_key",
};

async function post(sandbox: Sandbox, path: string, body: unknown, contentType = "application/json") {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: "POST",
    headers: { authorization: PUBLISHED_MERCHANT.authorization, "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("the published requests of real integrations, against the sandbox", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ start: START, merchants: [PUBLISHED] });
  });
  afterAll(() => sandbox.close());

  it("takes the developer page's ready body: scheme-less URLs, no lang default needed", async () => {
    const body = {
      payment: {
        transaction_type: "PAYMENT",
        order_id: "20220819105102",
        currency: "USD",
        amount: "1",
        lang: "EN",
      },
      merchant: { mid: "1849705C64" },
      buyer: { name: "eximbay", email: "test@eximbay.com" },
      url: { return_url: "eximbay.com", status_url: "eximbay.com" },
    };
    const reply = await post(sandbox, "/v1/payments/ready", body);
    expect(reply).toMatchObject({
      status: 200,
      json: { rescode: "0000", fgkey: expect.stringMatching(/^[0-9A-F]{64}$/) },
    });
  });

  it("takes an integration's ready body, and one with the lenient parts the gateway takes", async () => {
    expect((await post(sandbox, "/v1/payments/ready", READY_REQUEST_INTEGRATION)).json.rescode).toBe("0000");
    const lenient = {
      ...READY_REQUEST_INTEGRATION,
      payment: { ...READY_REQUEST_INTEGRATION.payment, order_id: "lenient-ready-1" },
      // colds104/PG-EximbayTest's ready: blank issuer_country and fast_payment fields; an empty tax; a blank surcharge.
      settings: { display_type: "R", issuer_country: "", ostype: "P" },
      fast_payment: { user_id: "u1", user_ci: "", phone_number: "", birthday: "", gender: "", foreigner: "" },
      tax: {},
      surcharge: [{}],
      product: [{ name: "test 상품", quantity: 1, unit_price: "1000", link: "" }],
    };
    expect(await post(sandbox, "/v1/payments/ready", lenient)).toMatchObject({
      status: 200,
      json: { rescode: "0000" },
    });
  });

  it("takes the token page's rebill body (blank product line) and an integration's (numeric quantity)", async () => {
    const created = sandbox.state.tokens.create(
      PUBLISHED.mid,
      { card: summarizeCard(PUBLISHED.mid, CARDS.visa), cardExpiry: "203012", unique: false },
      sandbox.clock.now(),
    );
    if (!created.ok) throw new Error("no token");
    const path = `/v1/payments/tokenbilling/${created.value.tokenId}/rebill`;
    const doc = await post(sandbox, path, TOKEN_REBILL_REQUEST_DOC);
    expect(doc).toMatchObject({
      status: 200,
      json: { rescode: "0000", payment: { order_id: "20220902101716" } },
    });
    expect(doc.json.payment).not.toHaveProperty("status");
    const integration = await post(sandbox, path, TOKEN_REBILL_REQUEST_INTEGRATION);
    expect(integration.json).toMatchObject({
      rescode: "0000",
      card_info: { card_number4: expect.any(String) },
    });
    // The documented delete: an empty JSON body.
    expect(
      (await post(sandbox, `/v1/payments/tokenbilling/${created.value.tokenId}/delete`, {})).json.rescode,
    ).toBe("0000");
  });

  it("answers an integration's retrieve and cancel bodies as the gateway would", async () => {
    const { payment } = RETRIEVE_REQUEST_INTEGRATION;
    // The published retrieve names a transaction this sandbox never made: Q004, no transaction.
    expect((await post(sandbox, "/v1/payments/retrieve", RETRIEVE_REQUEST_INTEGRATION)).json).toMatchObject({
      rescode: "Q004",
      payment: { status: "NONE" },
    });
    const made = recordPayment(sandbox, { orderId: payment.order_id, amount: "1", mid: PUBLISHED.mid });
    const retrieve = {
      ...RETRIEVE_REQUEST_INTEGRATION,
      payment: { ...payment, transaction_id: made.transactionId },
    };
    expect((await post(sandbox, "/v1/payments/retrieve", retrieve)).json).toMatchObject({
      rescode: "0000",
      payment: { status: "SALE", order_id: payment.order_id },
    });
    const cancel = await post(
      sandbox,
      `/v1/payments/${made.transactionId}/cancel`,
      CANCEL_REQUEST_INTEGRATION.body,
    );
    expect(cancel.json).toMatchObject({ rescode: "0000", refund: { refund_id: "Sample_refundId_1" } });
  });

  it("refuses a JSON body sent as another content type (EC1001), and takes the charset parameter", async () => {
    const body = { mid: PUBLISHED.mid, key_field: "order_id", payment: order("ct-1") };
    for (const type of ["text/plain", "application/x-www-form-urlencoded", ""]) {
      expect(await post(sandbox, "/v1/payments/retrieve", body, type), type).toMatchObject({
        status: 400,
        json: { rescode: "EC1001" },
      });
    }
    expect(
      (await post(sandbox, "/v1/payments/retrieve", body, "application/json; charset=UTF-8")).json.rescode,
    ).toBe("Q004");
  });
});

describe("the sandbox's fgkey against the real gateway's published callbacks", () => {
  it.each(CALLBACKS.filter((sample) => sample.testMerchant))("recomputes the fgkey of $name", ({ query }) => {
    expect(carriesValidFgkey(PUBLISHED_MERCHANT.fgkeySecret, query)).toBe(true);
    const params = new URLSearchParams(query);
    params.set("amount", "999");
    expect(carriesValidFgkey(PUBLISHED_MERCHANT.fgkeySecret, params.toString())).toBe(false);
  });

  it("writes it in upper case, as the gateway does", () => {
    expect(fgkeyOf("secret", { a: "1" })).toMatch(/^[0-9A-F]{64}$/);
  });
});

describe("status_url callbacks in the real gateway's forms", () => {
  let h: PaymentHarness;
  const harness = async (options: SandboxOptions = {}) => {
    h = await startPaymentHarness(options);
    h.site.respondWith(() => ({ text: "OK" }));
    return h;
  };
  afterEach(() => h.close());

  async function windowCallback(orderId: string) {
    const { fgkey } = succeeded(
      await h.client.ready(h.window(orderId, { tokenbilling: { token_creation: "Y" } })),
    );
    await h.complete(fgkey, card(CARDS.visa));
    await h.sandbox.deliveries.settled();
    return h.statusQueries().at(-1) ?? "";
  }

  it("sends the real form by default: no status, ver=230, upper-case fgkey, blank risk fields; it verifies", async () => {
    await harness();
    const query = await windowCallback("real-1");
    const params = Object.fromEntries(new URLSearchParams(query));
    expect(params).not.toHaveProperty("status");
    expect(params).toMatchObject({
      ver: "230",
      transaction_type: "PAYMENT",
      order_id: "real-1",
      rescode: "0000",
      dm_decision: "",
      param3: "",
      token_id: expect.stringMatching(/^SBXTK/),
      fgkey: expect.stringMatching(/^[0-9A-F]{64}$/),
    });
    expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");
    // Posted as a form, as the real gateway delivers it.
    expect(h.sandbox.deliveries.entries("status_url")).toMatchObject([
      { form: "real", method: "POST", body: query },
    ]);
    // The client reads it under the documented names, without a status.
    expect(parseStatusQuery(query).data).toMatchObject({ order_id: "real-1", version: "230" });
  });

  it("sends the older short names by option; verify takes them, the client reads them", async () => {
    await harness({ callbackForm: "short" });
    const query = await windowCallback("short-1");
    const params = Object.fromEntries(new URLSearchParams(query));
    expect(params).toMatchObject({
      txntype: "PAYMENT",
      ref: "short-1",
      cur: "USD",
      amt: "100.00",
      cardno4: "1111",
    });
    expect(params).not.toHaveProperty("order_id");
    expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");
    expect(parseStatusQuery(query).data).toMatchObject({
      order_id: "short-1",
      amount: "100.00",
      card_number4: "1111",
    });
  });

  it("mixes the other forms in under the mixedCallbackForm fault", async () => {
    await harness({ faults: { mixedCallbackFormRate: 1 } });
    for (const orderId of ["mix-1", "mix-2", "mix-3", "mix-4", "mix-5", "mix-6"])
      await windowCallback(orderId);
    const entries = h.sandbox.deliveries.entries("status_url");
    expect(entries).toHaveLength(6);
    // The seed's form comes as its GET query; the short names are posted like the real form.
    expect(new Set(entries.map((entry) => `${entry.form} ${entry.method}`))).toEqual(
      new Set(["seed GET", "short POST"]),
    );
    for (const query of h.statusQueries())
      expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");
    expect(h.sandbox.faults.counters().total.mixedCallbackForm).toBe(6);
  });
});

describe("the gateway's internal errors as faults", () => {
  let h: PaymentHarness;
  beforeAll(async () => {
    h = await startPaymentHarness({ faults: { routes: { "payments.retrieve": { internalErrorRate: 1 } } } });
  });
  afterAll(() => h.close());

  it("answers EM00 or EX1000 before handling: reads come back unavailable, nothing is counted twice", async () => {
    const outcomes = [];
    // Each code has an even chance per request: 16 requests meet both (the seed makes it the same every run).
    for (let n = 0; n < 16; n += 1) {
      outcomes.push(await h.client.retrieve({ key_field: "order_id", payment: order(`em-${n}`) }));
    }
    expect(outcomes.every((outcome) => outcome.kind === "unavailable")).toBe(true);
    const reasons = outcomes.map((outcome) => (outcome.kind === "unavailable" ? outcome.reason : ""));
    expect(reasons.some((reason) => reason.includes("EM00"))).toBe(true);
    expect(reasons.some((reason) => reason.includes("EX1000"))).toBe(true);
    expect(h.sandbox.faults.counters().byRoute["payments.retrieve"]?.internalError).toBeGreaterThanOrEqual(6);
  });
});
