import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PAYMENT_COMPLETED_EVENT } from "../../../../functions/core/partner/partner-webhook-setup";
import { encryptField } from "../../../../functions/gateway/card-crypto";
import { RECORD_KINDS } from "../../../../sandbox/state/ledger";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import {
  BUYER,
  CARDS,
  cardPayment,
  order,
  type PaymentHarness,
  startPaymentHarness,
  succeeded,
} from "../../../support/payment-sandbox";
import { callSandbox } from "../../../support/sandbox-gateway";

const MID = TEST_MERCHANT.mid;
const KEY = { key: TEST_MERCHANT.aesKeyHex };

/** A non-ui payment body as the wire carries it, for what the client refuses to send. */
function rawPayment(orderId: string, fields: { card_number: string; expiry_date: string; cvc: string }) {
  return {
    payment: {
      ...order(orderId),
      card_number: encryptField(fields.card_number, KEY),
      expiry_date: encryptField(fields.expiry_date, KEY),
      cvc: encryptField(fields.cvc, KEY),
    },
    merchant: { mid: MID },
    buyer: BUYER,
  };
}

describe("sandbox non-ui payment and retrieve (client contract)", () => {
  let h: PaymentHarness;

  beforeAll(async () => {
    h = await startPaymentHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.faults.configure({}));

  it("approves a test card: SALE with the verify fields, masked card, and retrieve finds it both ways", async () => {
    const paid = succeeded(await h.client.payment(cardPayment("card-ok-1", CARDS.visa)));
    expect(paid).toMatchObject({
      rescode: "0000",
      status: "SALE",
      mid: MID,
      transaction_type: "PAYMENT",
      order_id: "card-ok-1",
      currency: "USD",
      amount: "100.00",
      email: BUYER.email,
      transaction_id: expect.stringMatching(new RegExp(`^${TEST_MERCHANT.mid}W\\d{13}$`)),
      transaction_date: "20260310090000",
      auth_code: expect.stringMatching(/^\d{6}$/),
      card_number1: "4111",
      card_number4: "1111",
    });

    const byOrder = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order("card-ok-1") }),
    );
    expect(byOrder.payment).toMatchObject({
      status: "SALE",
      transaction_id: paid.transaction_id,
      balance: "100.00",
    });
    expect(byOrder.card_info).toEqual({ card_number1: "4111", card_number4: "1111" });
    const byId = succeeded(
      await h.client.retrieve({
        key_field: "transaction_id",
        payment: { ...order("card-ok-1"), transaction_id: paid.transaction_id },
      }),
    );
    expect(byId.payment).toMatchObject({ status: "SALE", order_id: "card-ok-1" });
  });

  it("approves any other Luhn-valid number and the second brand", async () => {
    for (const [orderId, number] of [
      ["card-ok-2", CARDS.mastercard],
      ["card-ok-3", CARDS.other],
    ] as const) {
      expect(succeeded(await h.client.payment(cardPayment(orderId, number))).status).toBe("SALE");
    }
  });

  it.each([
    ["insufficient funds", CARDS.insufficientFunds, "DC51", "INSUFFICIENT_FUNDS"],
    ["expired card", CARDS.expiredCard, "DC54", "EXPIRED_CARD"],
    ["stolen card", CARDS.stolen, "DC43", "STOLEN_OR_LOST_CARD"],
    ["payer authentication required (no payer_auth_id)", CARDS.payerAuth, "PA01", "INVALID_AUTHENTICATION"],
  ])(
    "declines %s: HTTP 200, rescode %s with errcode %s, the order failed and retrieve finds no transaction",
    async (_name, number, code, errcode) => {
      const orderId = `decl-${code}`;
      const outcome = await h.client.payment(cardPayment(orderId, number));
      expect(outcome).toMatchObject({ kind: "declined", code, errcode });
      expect(h.sandbox.state.payments.findOrder(MID, orderId)?.state).toBe("failed");
      const retrieved = succeeded(
        await h.client.retrieve({ key_field: "order_id", payment: order(orderId) }),
      );
      expect(retrieved).toMatchObject({ rescode: "Q004", payment: { status: "NONE" } });
    },
  );

  it("answers an acquirer error (EE01) that the client treats as unknown; retrieve then says NONE", async () => {
    const outcome = await h.client.payment(cardPayment("acq-1", CARDS.acquirerError));
    expect(outcome).toMatchObject({ kind: "unknown" });
    const retrieved = succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("acq-1") }));
    expect(retrieved.payment.status).toBe("NONE");
  });

  it("retrieve of an order never seen: Q004 with status NONE (as the real gateway), read as no transaction", async () => {
    const reply = await callSandbox(h.sandbox, "/v1/payments/retrieve", {
      body: { mid: MID, key_field: "order_id", payment: order("never-seen") },
    });
    expect(reply).toMatchObject({
      status: 200,
      json: {
        rescode: "Q004",
        resmsg: "No Transaction",
        payment: { status: "NONE", order_id: "never-seen" },
      },
    });
    const retrieved = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order("never-seen") }),
    );
    expect(retrieved).toMatchObject({ rescode: "Q004", mid: MID, payment: { status: "NONE" } });
  });

  it("never reuses an order_id, after success or failure: EEEE, which the client reads as unknown", async () => {
    succeeded(await h.client.payment(cardPayment("reuse-ok", CARDS.visa)));
    expect(await h.client.payment(cardPayment("reuse-ok", CARDS.visa))).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("EEEE"),
    });
    expect(await h.client.payment(cardPayment("reuse-bad", CARDS.insufficientFunds))).toMatchObject({
      kind: "declined",
    });
    expect(await h.client.payment(cardPayment("reuse-bad", CARDS.visa))).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("EEEE"),
    });
    // The retries changed nothing: the first outcomes stand.
    const ok = succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("reuse-ok") }));
    const bad = succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("reuse-bad") }));
    expect([ok.payment.status, bad.payment.status]).toEqual(["SALE", "NONE"]);
  });

  it("refuses a card the sandbox clock says has expired: HE01, nothing recorded", async () => {
    const input = cardPayment("exp-1", CARDS.visa, {
      card: { card_number: CARDS.visa, expiry_date: "202602", cvc: "123" },
    });
    expect(await h.client.payment(input)).toMatchObject({ kind: "invalid", code: "HE01" });
    expect(h.sandbox.state.payments.findOrder(MID, "exp-1")).toBeUndefined();
    // The current month is still valid.
    const current = cardPayment("exp-2", CARDS.visa, {
      card: { card_number: CARDS.visa, expiry_date: "202603", cvc: "123" },
    });
    expect(succeeded(await h.client.payment(current)).status).toBe("SALE");
  });

  it.each([
    ["HE00", "a Luhn-invalid number", { card_number: "4111111111111112", expiry_date: "203012", cvc: "123" }],
    ["HE00", "letters in the number", { card_number: "4111abcd11111111", expiry_date: "203012", cvc: "123" }],
    ["HE01", "an expiry that is not YYYYMM", { card_number: CARDS.visa, expiry_date: "12/30", cvc: "123" }],
    ["HE02", "a two-digit CVC", { card_number: CARDS.visa, expiry_date: "203012", cvc: "12" }],
  ])("answers %s for %s sent encrypted (raw: the client refuses it)", async (code, _name, fields) => {
    const reply = await callSandbox(h.sandbox, "/v1/payments/payment", {
      body: rawPayment(`raw-${code}`, fields),
    });
    expect(reply).toMatchObject({ status: 400, json: { rescode: code } });
    expect(JSON.stringify(reply.json)).not.toContain(fields.card_number.slice(4, 12));
  });

  it("answers HE00 / HE01 / HE02 for a field that does not decrypt with the merchant's key", async () => {
    const good = rawPayment("nodecrypt", { card_number: CARDS.visa, expiry_date: "203012", cvc: "123" });
    const otherKey = { key: "ab".repeat(32) };
    for (const [field, code] of [
      ["card_number", "HE00"],
      ["expiry_date", "HE01"],
      ["cvc", "HE02"],
    ] as const) {
      const body = { ...good, payment: { ...good.payment, [field]: encryptField("whatever", otherKey) } };
      const reply = await callSandbox(h.sandbox, "/v1/payments/payment", { body });
      expect(reply).toMatchObject({
        status: 400,
        json: { rescode: code, resmsg: expect.stringContaining(`payment.${field}`) },
      });
    }
  });

  it("answers HE03 for a bad amount and EC00 naming the field otherwise, recording nothing", async () => {
    const body = rawPayment("bad-amount", { card_number: CARDS.visa, expiry_date: "203012", cvc: "123" });
    const badAmount = await callSandbox(h.sandbox, "/v1/payments/payment", {
      body: { ...body, payment: { ...body.payment, amount: "1,000" } },
    });
    expect(badAmount).toMatchObject({
      status: 400,
      json: { rescode: "HE03", resmsg: expect.stringContaining("payment.amount") },
    });
    const noEmail = await callSandbox(h.sandbox, "/v1/payments/payment", {
      body: { ...body, buyer: { name: "x" } },
    });
    expect(noEmail).toMatchObject({
      status: 400,
      json: { rescode: "EC00", resmsg: expect.stringContaining("buyer.email") },
    });
    const otherMid = await callSandbox(h.sandbox, "/v1/payments/payment", {
      body: { ...body, merchant: { mid: "SOMEONE" } },
    });
    expect(otherMid).toMatchObject({
      status: 400,
      json: { rescode: "EC00", resmsg: expect.stringContaining("merchant.mid") },
    });
    expect(h.sandbox.state.payments.findOrder(MID, "bad-amount")).toBeUndefined();
  });

  it("keeps no card number or CVC anywhere: ledger records and delivery log hold first4/last4 only", async () => {
    succeeded(
      await h.client.payment(cardPayment("pii-1", CARDS.other, { tokenbilling: { token_creation: "Y" } })),
    );
    const dump = JSON.stringify([
      ...RECORD_KINDS.flatMap((kind) => [...h.sandbox.state.records(kind)]),
      h.sandbox.deliveries.entries(),
    ]);
    expect(dump).not.toContain(CARDS.other);
    expect(dump).not.toContain(CARDS.visa);
    expect(dump).not.toMatch(/"cvc"/);
    expect(dump).toContain('"first4":"4242"');
  });

  it("timeout after commit: the client sees unknown, the payment exists, retrieve finds SALE", async () => {
    const slow = await startPaymentHarness(
      { faults: { routes: { "payments.payment": { timeoutAfterCommitRate: 1 } } } },
      { timeoutMs: 300 },
    );
    try {
      const outcome = await slow.client.payment(cardPayment("tac-1", CARDS.visa));
      expect(outcome).toMatchObject({ kind: "unknown", reason: "timed out after sending" });
      expect(slow.sandbox.state.payments.findFinalTransaction(MID, "tac-1")?.status).toBe("SALE");
      const retrieved = succeeded(
        await slow.client.retrieve({ key_field: "order_id", payment: order("tac-1") }),
      );
      expect(retrieved.payment.status).toBe("SALE");
    } finally {
      await slow.close();
    }
  });

  it("sends PAYMENT_COMPLETED to the merchant's active partner subscriptions when a payment completes", async () => {
    const now = h.sandbox.clock.now();
    h.sandbox.state.partner.createSubscription(
      MID,
      { endpointUrl: `${h.site.url}/partner`, eventTypes: [PAYMENT_COMPLETED_EVENT] },
      now,
    );
    h.sandbox.state.partner.createSubscription(
      MID,
      { endpointUrl: `${h.site.url}/inactive`, eventTypes: [PAYMENT_COMPLETED_EVENT], isActive: false },
      now,
    );
    h.site.reset();
    const paid = succeeded(await h.client.payment(cardPayment("partner-1", CARDS.visa)));
    await h.client.payment(cardPayment("partner-2", CARDS.insufficientFunds));
    await h.sandbox.deliveries.settled();
    const events = h.site.requests.filter((r) => r.url === "/partner" || r.url === "/inactive");
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.body ?? "")).toEqual({
      id: `evt_${paid.transaction_id}`,
      eventType: "PAYMENT_COMPLETED",
      timestamp: "2026-03-10T00:00:00.000Z",
      data: {
        invoice: { invoiceId: `inv_${paid.transaction_id}`, invoiceNumber: "partner-1", status: "COMPLETED" },
        payment: {
          transactionId: paid.transaction_id,
          amount: "100.00",
          currency: "USD",
          rescode: "0000",
          resmsg: "Success.",
        },
      },
    });
  });
});

describe("sandbox chargeback test card", () => {
  let h: PaymentHarness;

  beforeAll(async () => {
    h = await startPaymentHarness();
    h.sandbox.state.webhooks.setChargebackUrl(MID, `${h.site.url}/chargeback`);
  });
  afterAll(() => h.close());

  it("approves 4000000000000259, then a chargeback is reported a day later on the sandbox clock", async () => {
    h.site.respondWith(() => ({ json: { rescode: "0000", resmsg: "Success" } }));
    const paid = succeeded(await h.client.payment(cardPayment("cb-card-1", CARDS.chargeback)));
    expect(paid.status).toBe("SALE");
    await h.sandbox.clock.advance("PT23H");
    expect(h.sandbox.state.payments.findTransaction(MID, paid.transaction_id)?.chargeback).toBeUndefined();
    await h.sandbox.clock.advance("PT1H");
    expect(h.sandbox.state.payments.findTransaction(MID, paid.transaction_id)).toMatchObject({
      balance: "100.00",
      chargeback: { amount: "100.00", status: "REPORTED", chargebackDate: "20260311090000" },
    });
    await h.sandbox.deliveries.settled();
    const hook = h.site.requests.find((r) => r.url === "/chargeback");
    expect(JSON.parse(hook?.body ?? "{}")).toMatchObject({
      type: "CHARGEBACK",
      data: { transaction_id: paid.transaction_id, chargeback_status: "REPORTED" },
    });
  });
});
