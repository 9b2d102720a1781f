import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { encryptField } from "../../../functions/gateway/card-crypto";
import { basicAuthorization } from "../../../functions/gateway/context";
import { computeFgkey } from "../../../functions/gateway/fgkey";
import { keepAliveAgent, type RawRequest, type RawResponse, sendRaw } from "../../../local/clients/raw-http";
import { summarizeCard } from "../../../sandbox/acquirer/cards";
import { invalidField } from "../../../sandbox/api/payment-codes";
import { bodyKindOf, type RouteDefinition, RouteTable } from "../../../sandbox/http/routes";
import { BUILT_IN_ROUTES, type Sandbox, startSandbox } from "../../../sandbox/server";
import { type Merchant, TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { concretePath, describeCase, type FuzzTarget, fuzzCases } from "../../support/fuzz-requests";
import { recordPayment } from "../../support/sandbox-gateway";

// Every route of the sandbox gets FUZZ_RUNS hostile requests (default 1000, seed FUZZ_SEED). Each answer must be
// JSON in the route family's envelope, never 5xx (no faults are injected), never success for a request that must be
// refused, and the ledger revision may move only across a successful answer (requests go one at a time).

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_310);

/**
 * Every route the sandbox serves is fuzzed here, or left out by name: sandbox-only controls meant to change state,
 * and the window's pages.
 */
const EXCLUDED = new Set([
  "sandbox.clock.move",
  "sandbox.faults.put",
  "sandbox.webhooks.chargeback-url",
  "sandbox.webhooks.chargeback",
  "sandbox.webhooks.payout",
  "sandbox.partner.tokens.expire",
  "sandbox.settlement-alterations.add",
  "sandbox.windows.complete",
  "sandbox.deposits",
  "sandbox.tokens.create",
  "sandbox.tokens.expire",
  "sandbox.tokens.revoke",
  "sandbox.tokens.reactivate",
  // The payment window's pages answer a browser in HTML, not the gateway's JSON: their own suite drives them in
  // headless Chromium and sends them malformed forms (api/payment-window.test.ts).
  "window.sdk.v1",
  "window.sdk.v2",
  "window.open",
  "window.pay",
]);

const FUZZED = BUILT_IN_ROUTES.filter((route) => !EXCLUDED.has(route.name));

/** Unsupported methods a client may send (HEAD has no body by protocol; CONNECT opens a tunnel). */
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PURGE", "FUZZ"];

const START = new Date("2026-03-10T00:00:00.000Z");
const MID = TEST_MERCHANT.mid;
const MID_KEY = TEST_MERCHANT.apiKey;
const OTHER: Merchant = {
  mid: "SBXOTHER01",
  apiKey: "sandbox_api_key_other_merchant",
  aesKeyHex: "fedcba9876543210".repeat(4),
  webhookSecret: "sandbox_webhook_secret_other_merchant",
  partnerApiKey: "sandbox_partner_api_key_other_merchant",
};
const KEY = { key: TEST_MERCHANT.aesKeyHex };
const BUYER = { name: "Fuzz Buyer", email: "buyer@example.com" };
const order = (orderId: string) => ({ order_id: orderId, currency: "USD", amount: "100.00", lang: "EN" });
const PARTNER_PATH = "/api/v1/partner/";

/** A non-ui payment with an approving test card, as the wire carries it. */
function paymentBody(orderId: string, extra: Record<string, unknown> = {}) {
  return {
    payment: {
      ...order(orderId),
      card_number: encryptField("4111111111111111", KEY),
      expiry_date: encryptField("203012", KEY),
      cvc: encryptField("123", KEY),
    },
    merchant: { mid: MID },
    buyer: BUYER,
    ...extra,
  };
}

const rescodeEnvelope = z.object({ rescode: z.string() });
const partnerEnvelope = z.object({ code: z.string(), message: z.string().optional() });
const SUCCESS_CODES = new Set(["0000", "SUCCESS", "CMN_0000"]);
/** Answers the server gives before any handler runs (CMN_4004 only as "Unknown path"). */
const SERVER_CODES = new Set([
  "EC1000",
  "EC1001",
  "EC1003",
  "EC1004",
  "AUTH_3000",
  "AUTH_3001",
  "CMN_4001",
  "CMN_4005",
]);

interface Answer {
  readonly code: string;
  readonly success: boolean;
  readonly reachedHandler: boolean;
}

function isPartnerPath(path: string): boolean {
  return new URL(path, "http://sandbox.invalid").pathname.startsWith(PARTNER_PATH);
}

/** The answer's envelope code; throws (failing the property) when it is not JSON in the family's envelope. */
function answerOf(request: RawRequest, response: RawResponse): Answer {
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    throw new Error(`HTTP ${response.status}: not JSON: ${JSON.stringify(response.text.slice(0, 200))}`);
  }
  if (isPartnerPath(request.path)) {
    const { code, message } = partnerEnvelope.parse(json);
    const unknownPath = code === "CMN_4004" && message === "Unknown path";
    return { code, success: code === "CMN_0000", reachedHandler: !SERVER_CODES.has(code) && !unknownPath };
  }
  const { rescode } = rescodeEnvelope.parse(json);
  return { code: rescode, success: SUCCESS_CODES.has(rescode), reachedHandler: !SERVER_CODES.has(rescode) };
}

/** What each fuzzed route accepts: the valid sample, and whether it changes the ledger. */
interface Sample {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly mutates: boolean;
  /** Whether the sample is the test merchant's own (another merchant's credentials are then refused). */
  readonly owned: boolean;
}

interface Fixture {
  readonly saleId: string;
  readonly settleId: string;
  readonly authId: string;
  readonly recurringToDelete: string;
  readonly recurringToAdjust: string;
  readonly payerAuthId: string;
  readonly verifyData: string;
  readonly subscriptionToUpdate: string;
  readonly subscriptionToDelete: string;
  readonly tokenToCharge: string;
  readonly tokenToDelete: string;
}

function samplesFor(f: Fixture): Readonly<Record<string, Sample>> {
  const read = { mutates: false, owned: true } as const;
  const write = { mutates: true, owned: true } as const;
  const admin = { mutates: false, owned: false } as const;
  const mid = { mid: MID };
  const merchant = { merchantId: MID };
  const subscription = { endpointUrl: "https://merchant.example/events", eventTypes: ["PAYMENT_COMPLETED"] };
  return {
    "sandbox.clock.get": admin,
    "sandbox.faults.get": admin,
    "sandbox.ledger": { ...admin, query: { kind: "payments", mid: MID, limit: "5", offset: "0" } },
    "sandbox.deliveries": { ...admin, query: { kind: "status_url" } },
    "sandbox.settlement-alterations.list": admin,
    "sandbox.receipts": { ...admin, params: { transaction_id: f.saleId } },
    "reconciliation.transactions": { ...read, body: { ...mid, from_date: "20260304", to_date: "20260310" } },
    "reconciliation.settlements": { ...read, body: { ...mid, remittance_date: "20260309" } },
    "reconciliation.expected-settlements": { ...read, body: { ...mid, pre_remittance_date: "20260310" } },
    "webhooks.register": {
      mutates: true,
      owned: false,
      body: { url: "https://merchant.example/payouts", type: "PAYOUT_REMITTANCE_COMPLETE" },
    },
    "webhooks.info": { mutates: false, owned: false },
    "partner.token": { mutates: true, owned: false },
    "partner.webhooks.create": { ...write, params: merchant, body: subscription },
    "partner.webhooks.list": { ...read, params: merchant },
    "partner.webhooks.update": {
      ...write,
      params: { ...merchant, publicId: f.subscriptionToUpdate },
      body: { ...subscription, isActive: false },
    },
    "partner.webhooks.delete": { ...write, params: { ...merchant, publicId: f.subscriptionToDelete } },
    "payments.ready": {
      ...write,
      body: {
        payment: { transaction_type: "PAYMENT", ...order("fz-ready") },
        merchant: mid,
        url: { return_url: "https://merchant.example/return", status_url: "https://merchant.example/status" },
        buyer: BUYER,
      },
    },
    "payments.confirm": {
      ...write,
      body: {
        transaction_type: "PAYMENT_PA",
        mid: MID,
        payment: { ...order("fz-pa"), payer_auth_id: f.payerAuthId },
      },
    },
    "payments.verify": { ...read, body: { data: f.verifyData } },
    "payments.retrieve": { ...read, body: { ...mid, key_field: "order_id", payment: order("fz-sale") } },
    "payments.receipt-url": {
      ...read,
      params: { transaction_id: f.saleId },
      body: { ...mid, email: BUYER.email },
    },
    "payments.cancel": {
      ...write,
      params: { transaction_id: f.saleId },
      body: {
        ...mid,
        refund: { refund_type: "P", refund_amount: "1.00", refund_id: "fz-refund-1", reason: "fuzz" },
        payment: { ...order("fz-sale"), balance: "100.00" },
      },
    },
    "payments.capture": {
      ...write,
      params: { transaction_id: f.authId },
      body: { ...mid, payment: order("fz-auth") },
    },
    "payments.settle": {
      ...write,
      params: { transaction_id: f.settleId },
      body: { ...mid, payment: { order_id: "fz-settle", currency: "USD", amount: "100.00" } },
    },
    "payments.payment": { ...write, body: paymentBody("fz-pay") },
    "payments.recurring.delete": { ...write, params: { recurring_id: f.recurringToDelete }, body: mid },
    "payments.tokenbilling.rebill": {
      ...write,
      params: { token_id: f.tokenToCharge },
      body: { payment: order("fz-token-rebill"), merchant: mid },
    },
    "payments.tokenbilling.delete": { ...write, params: { token_id: f.tokenToDelete }, body: {} },
    "payments.tokenbilling.inquiry": { ...read, params: { token_id: f.tokenToCharge } },
    "payments.recurring.adjust": {
      ...write,
      params: { recurring_id: f.recurringToAdjust },
      body: { adjust_amount: "12.00" },
    },
  };
}

type Headers = Readonly<Record<string, string>>;

interface PartnerTokens {
  readonly own: string;
  readonly other: string;
}

/** Valid, refused and other-merchant credentials of a route's auth kind. */
function credentialsOf(
  route: RouteDefinition,
  tokens: PartnerTokens,
  owned: boolean,
): Pick<FuzzTarget, "credentials" | "credentialHeader" | "badCredentials" | "otherMerchant"> {
  const basic = (apiKey: string) => ({ authorization: basicAuthorization(apiKey) });
  const base64 = (text: string) => Buffer.from(text).toString("base64");
  switch (route.auth) {
    case "basic":
      return {
        credentials: basic(MID_KEY),
        credentialHeader: "authorization",
        badCredentials: [
          basic("not_the_api_key"),
          { authorization: `Basic ${base64(MID_KEY)}` },
          { authorization: `Basic ${base64(`${MID_KEY}:password`)}` },
          { authorization: `Bearer ${MID_KEY}` },
          { apikey: TEST_MERCHANT.partnerApiKey },
        ],
        otherMerchant: { credentials: basic(OTHER.apiKey), refused: owned },
      };
    case "partner-api-key":
      return {
        credentials: { apikey: TEST_MERCHANT.partnerApiKey },
        credentialHeader: "apikey",
        badCredentials: [{ apikey: MID_KEY }, { apikey: "" }, basic(MID_KEY)],
        otherMerchant: { credentials: { apikey: OTHER.partnerApiKey }, refused: owned },
      };
    case "partner-bearer":
      return {
        credentials: { authorization: `Bearer ${tokens.own}` },
        credentialHeader: "authorization",
        badCredentials: [
          { authorization: `Bearer ${tokens.own.slice(0, -1)}${tokens.own.endsWith("A") ? "B" : "A"}` },
          { authorization: `Bearer ${tokens.own} ${tokens.own}` },
          basic(MID_KEY),
          { apikey: TEST_MERCHANT.partnerApiKey },
        ],
        otherMerchant: { credentials: { authorization: `Bearer ${tokens.other}` }, refused: owned },
      };
    case "none":
      return { credentials: {}, badCredentials: [] };
  }
}
describe("sandbox fuzz: hostile requests to every route", () => {
  let sandbox: Sandbox;
  const agent = keepAliveAgent();
  let targets: { target: FuzzTarget; sample: Sample }[] = [];
  const stats: string[] = [];
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype);

  async function send(request: RawRequest): Promise<{ response: RawResponse; answer: Answer }> {
    const response = await sendRaw(sandbox.url, agent, request);
    return { response, answer: answerOf(request, response) };
  }

  /** A setup call that must succeed; its JSON answer. */
  async function setup(method: string, path: string, headers: Headers, body?: unknown): Promise<unknown> {
    const request = {
      method,
      path,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body ?? {}),
    };
    const { response, answer } = await send(request);
    if (!answer.success) throw new Error(`setup ${method} ${path}: ${response.text}`);
    return JSON.parse(response.text);
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ start: START, merchants: [TEST_MERCHANT, OTHER] });
    const auth = { authorization: basicAuthorization(MID_KEY) };
    const pay = async (orderId: string, extra?: Record<string, unknown>) =>
      z
        .object({
          transaction_id: z.string(),
          recurring_id: z.string().optional(),
          token_id: z.string().optional(),
        })
        .loose()
        .parse(await setup("POST", "/v1/payments/payment", auth, paymentBody(orderId, extra)));
    const sale = await pay("fz-sale");
    const settle = await pay("fz-settle");
    const recurring = {
      recurring_amount: "10.00",
      recurring_start_date: "20260410",
      recurring_interval: "1",
    };
    const toDelete = await pay("fz-rec-1", { recurring });
    const toAdjust = await pay("fz-rec-2", { recurring });
    const withToken = { tokenbilling: { token_creation: "Y" } };
    const tokenToCharge = (await pay("fz-token-1", withToken)).token_id ?? "";
    const tokenToDelete = (await pay("fz-token-2", withToken)).token_id ?? "";
    const authorised = recordPayment(sandbox, { orderId: "fz-auth", amount: "100.00", status: "AUTH" });
    // A PAYER_AUTH window leaves a prepared order and its payer authentication (confirm pays that order).
    sandbox.state.payments.createOrder(MID, "fz-pa", sandbox.clock.now());
    const payerAuth = sandbox.state.payerAuths.create(
      MID,
      {
        orderId: "fz-pa",
        currency: "USD",
        amount: "100.00",
        card: summarizeCard(MID, "4111111111111111"),
        cardExpiry: "203012",
      },
      sandbox.clock.now(),
    );
    // The non-ui payment answers the verify fields: signed, they are what status_url would have received.
    const fields = z.record(z.string(), z.string()).parse(sale);
    const verifyData = new URLSearchParams({ ...fields, fgkey: computeFgkey(MID_KEY, fields) }).toString();
    const tokenOf = async (apiKey: string) =>
      z
        .object({ data: z.object({ token: z.string() }) })
        .parse(await setup("GET", "/api/v1/partner/auth/token", { apikey: apiKey })).data.token;
    const tokens = {
      own: await tokenOf(TEST_MERCHANT.partnerApiKey),
      other: await tokenOf(OTHER.partnerApiKey),
    };
    const subscribe = async () =>
      z.object({ data: z.object({ id: z.string() }) }).parse(
        await setup(
          "POST",
          `/api/v1/partner/merchants/${MID}/webhooks`,
          { authorization: `Bearer ${tokens.own}` },
          {
            endpointUrl: "https://merchant.example/events",
            eventTypes: ["PAYMENT_COMPLETED"],
          },
        ),
      ).data.id;
    const samples = samplesFor({
      saleId: sale.transaction_id,
      settleId: settle.transaction_id,
      authId: authorised.transactionId,
      recurringToDelete: toDelete.recurring_id ?? "",
      recurringToAdjust: toAdjust.recurring_id ?? "",
      payerAuthId: payerAuth.payerAuthId,
      verifyData,
      subscriptionToUpdate: await subscribe(),
      subscriptionToDelete: await subscribe(),
      tokenToCharge,
      tokenToDelete,
    });
    const table = new RouteTable();
    for (const route of BUILT_IN_ROUTES) table.add(route);
    targets = FUZZED.map((route) => {
      const sample = samples[route.name];
      if (!sample) throw new Error(`no sample for route ${route.name}`);
      const path = concretePath(route.path, sample.params ?? {});
      const target: FuzzTarget = {
        name: route.name,
        method: route.method,
        path: route.path,
        params: sample.params ?? {},
        query: sample.query,
        body: sample.body,
        requiresBody: bodyKindOf(route) === "object",
        jsonContentTypeOnly: bodyKindOf(route) !== "none",
        ...credentialsOf(route, tokens, sample.owned),
        wrongMethods: METHODS.filter((method) => table.match(method, path).kind !== "found"),
      };
      return { target, sample };
    });
  });

  afterAll(async () => {
    agent.destroy();
    await sandbox.close();
    if (stats.length > 0)
      console.log(`sandbox fuzz, ${RUNS} runs per route, seed ${SEED}:\n${stats.join("\n")}`);
  });

  it("knows every sandbox route: fuzzed, or a state-changing control left out", async () => {
    for (const route of BUILT_IN_ROUTES) {
      // A second route of the same name is refused only when the name is built in.
      await expect(startSandbox({ port: 0, routes: [route] }), route.name).rejects.toThrow(
        /duplicate route name/,
      );
    }
    expect(targets.length + EXCLUDED.size).toBe(BUILT_IN_ROUTES.length);
    expect(targets.length).toBeGreaterThanOrEqual(26);
  });

  it("answers the valid sample of every fuzzed route with success, changing the ledger only for writes", async () => {
    for (const { target, sample } of targets) {
      const before = sandbox.state.revision;
      const { response, answer } = await send({
        method: target.method,
        path: `${concretePath(target.path, target.params)}${target.query ? `?${new URLSearchParams(target.query)}` : ""}`,
        headers: { "content-type": "application/json", ...target.credentials },
        body: target.body === undefined ? "" : JSON.stringify(target.body),
      });
      expect(answer.success, `${target.name}: ${response.text}`).toBe(true);
      expect(sandbox.state.revision > before, `${target.name} changes the ledger`).toBe(sample.mutates);
    }
  });

  describe.each(FUZZED.map((route) => route.name))("%s", (name) => {
    it(`survives ${RUNS} hostile requests`, async () => {
      const entry = targets.find(({ target }) => target.name === name);
      if (!entry) throw new Error(`route ${name} was not set up`);
      const { target } = entry;
      let successes = 0;
      let reached = 0;
      let eligible = 0;
      let writes = 0;
      const codes = new Set<string>();
      const property = fc.asyncProperty(fuzzCases(target), async (c) => {
        const before = sandbox.state.revision;
        const { response, answer } = await send(c.request);
        const moved = sandbox.state.revision !== before;
        const where = `${name} ← ${describeCase(c)} → HTTP ${response.status} ${response.text.slice(0, 200)}`;
        expect(response.status, where).toBeGreaterThanOrEqual(200);
        expect(response.status, where).toBeLessThan(500);
        expect(response.headers["content-type"], where).toMatch(/^application\/json/);
        if (c.mustRefuse) expect(answer.success, `must refuse: ${where}`).toBe(false);
        // A body not sent as JSON is refused as such (EC1001), whatever it holds.
        if (c.refusedAtTheDoor)
          expect(answer.code, where).toBe(isPartnerPath(target.path) ? "CMN_4001" : "EC1001");
        else eligible++;
        if (!answer.success) expect(moved, `ledger changed without success: ${where}`).toBe(false);
        codes.add(answer.code);
        if (answer.success) successes++;
        if (answer.reachedHandler) reached++;
        if (moved) writes++;
      });
      await fc.assert(property, { numRuns: RUNS, seed: SEED });
      stats.push(
        `${name.padEnd(38)} ok ${String(successes).padStart(4)}  writes ${String(writes).padStart(4)}  handled ${String(reached).padStart(4)}  codes ${[...codes].sort().join(" ")}`,
      );
      // Most generated requests the route should read get past routing, authentication and body parsing.
      expect(reached, `${name}: requests that reached the handler`).toBeGreaterThanOrEqual(eligible * 0.2);
    }, 120_000);
  });

  describe("regressions the fuzzer found", () => {
    it("answers unparseable HTTP (unknown method, oversized head) with JSON in the family's envelope", async () => {
      const unknownMethod = await sendRaw(sandbox.url, agent, {
        method: "FUZZ",
        path: "/v1/payments/retrieve",
      });
      expect([unknownMethod.status, JSON.parse(unknownMethod.text)]).toEqual([
        400,
        { rescode: "EC1001", resmsg: "Invalid request body: malformed HTTP request" },
      ]);
      const partner = await sendRaw(sandbox.url, agent, {
        method: "FUZZ",
        path: "/api/v1/partner/auth/token",
      });
      expect([partner.status, JSON.parse(partner.text)]).toMatchObject([400, { code: "CMN_4001" }]);
      const oversized = await sendRaw(sandbox.url, agent, {
        method: "GET",
        path: `/sandbox/ledger?x=${"a".repeat(70_000)}`,
      });
      expect([oversized.status, JSON.parse(oversized.text)]).toMatchObject([431, { rescode: "EC1001" }]);
    });

    it("names a refused field called __proto__ or constructor with EC00 (the rescode was lost)", () => {
      for (const key of ["__proto__", "constructor", "toString"]) {
        expect(invalidField(`payment.${key}`, "is invalid").body).toEqual({
          rescode: "EC00",
          resmsg: `Invalid parameter: payment.${key} (is invalid)`,
        });
      }
    });

    it("reads a body with keys named __proto__ or constructor, ignoring them as it ignores any unknown key", async () => {
      for (const key of ["__proto__", "constructor"]) {
        const body = `{"mid":"${MID}","key_field":"order_id","payment":${JSON.stringify(order("fz-sale"))},"${key}":{}}`;
        const response = await sendRaw(sandbox.url, agent, {
          method: "POST",
          path: "/v1/payments/retrieve",
          headers: { authorization: basicAuthorization(MID_KEY), "content-type": "application/json" },
          body,
        });
        expect([response.status, JSON.parse(response.text)]).toMatchObject([
          200,
          { rescode: "0000", payment: { order_id: "fz-sale", status: "SALE" } },
        ]);
      }
    });
  });

  it("still answers afterwards, and no prototype was polluted", async () => {
    const { answer } = await send({ method: "GET", path: "/sandbox/clock" });
    expect(answer).toMatchObject({ code: "0000", success: true });
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeKeys);
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  });
});
