import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { computeFgkey } from "../../../../functions/gateway/fgkey";
import { parseStatusQuery } from "../../../../functions/gateway/schemas/payment-window";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import {
  BUYER,
  CARDS,
  card,
  cardPayment,
  order,
  type PaymentHarness,
  startPaymentHarness,
  succeeded,
} from "../../../support/payment-sandbox";
import { callSandbox } from "../../../support/sandbox-gateway";

const MID = TEST_MERCHANT.mid;

/** The window result a completion answered with (what went to status_url). */
const completion = z.object({ result: z.record(z.string(), z.string()) });
const resultOf = (reply: { json: unknown }) => completion.parse(reply.json).result;

/** The query with one parameter changed, added or removed; the fgkey left as it was. */
function tampered(query: string, change: (params: URLSearchParams) => void): string {
  const params = new URLSearchParams(query);
  change(params);
  return params.toString();
}

describe("sandbox payment window, callbacks in the seed's form (ready → complete → status_url → verify)", () => {
  let h: PaymentHarness;

  beforeAll(async () => {
    // The seed documents the window result with its status: what these cases read. The real form is below.
    h = await startPaymentHarness({ callbackForm: "seed" });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.site.reset();
    h.sandbox.faults.configure({});
  });

  /** ready + complete with a card; the one status_url query received. */
  async function payInWindow(orderId: string, cardNumber: string = CARDS.visa, extra = {}) {
    const { fgkey } = succeeded(await h.client.ready(h.window(orderId, extra)));
    const completed = await h.complete(fgkey, card(cardNumber));
    expect(completed.status).toBe(200);
    await h.sandbox.deliveries.settled();
    const [query] = h.statusQueries().slice(-1);
    if (query === undefined) throw new Error("status_url was not called");
    return { fgkey, query, completed };
  }

  it("ready answers the fgkey of the request; the same request again answers the same fgkey", async () => {
    const input = h.window("win-ready-1");
    const first = succeeded(await h.client.ready(input));
    expect(first).toMatchObject({ rescode: "0000", fgkey: expect.stringMatching(/^[0-9A-F]{64}$/) });
    expect(succeeded(await h.client.ready(input)).fgkey).toBe(first.fgkey);
    expect(h.sandbox.state.windows.find(first.fgkey)).toMatchObject({
      mid: MID,
      orderId: "win-ready-1",
      state: "open",
    });
  });

  it("ready with an order_id used before (another request, or a non-ui payment) answers EEEE → unknown", async () => {
    succeeded(await h.client.ready(h.window("win-dup-1")));
    const other = h.window("win-dup-1", { buyer: { ...BUYER, name: "Someone Else" } });
    expect(await h.client.ready(other)).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("EEEE"),
    });
    succeeded(await h.client.payment(cardPayment("win-dup-2", CARDS.visa)));
    expect(await h.client.ready(h.window("win-dup-2"))).toMatchObject({ kind: "unknown" });
  });

  it("completes a PAYMENT window: SALE, status_url gets the verify fields, verify accepts them untouched", async () => {
    const { query, completed } = await payInWindow("win-pay-1", CARDS.visa, {
      other_param: { param1: "a b&c", param2: "ü" },
    });
    const parsed = parseStatusQuery(query);
    expect(parsed.success && parsed.data).toMatchObject({
      version: "1.0",
      mid: MID,
      transaction_type: "PAYMENT",
      order_id: "win-pay-1",
      currency: "USD",
      amount: "100.00",
      email: BUYER.email,
      rescode: "0000",
      status: "SALE",
      param1: "a b&c",
      param2: "ü",
      card_number1: "4111",
      card_number4: "1111",
      transaction_id: expect.stringMatching(new RegExp(`^${TEST_MERCHANT.mid}W`)),
    });
    expect(completed.json).toMatchObject({
      rescode: "0000",
      status_url: h.statusUrl,
      return_url: expect.stringMatching(new RegExp(`^${h.returnUrl}\\?`)),
    });
    expect(succeeded(await h.client.verify(query))).toMatchObject({ rescode: "0000" });
    const retrieved = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order("win-pay-1") }),
    );
    expect(retrieved.payment.status).toBe("SALE");
  });

  it("verify rejects every altered, added or removed parameter", async () => {
    const { query } = await payInWindow("win-tamper-1");
    const keys = [...new URLSearchParams(query).keys()];
    expect(keys.length).toBeGreaterThan(10);
    const variants = [
      ...keys.map((key) => tampered(query, (p) => p.set(key, `${p.get(key)}x`))),
      ...keys.filter((key) => key !== "fgkey").map((key) => tampered(query, (p) => p.delete(key))),
      tampered(query, (p) => p.append("param3", "extra")),
      tampered(query, (p) => p.append("amount", "1.00")),
    ];
    for (const variant of variants) {
      expect(await h.client.verify(variant), variant).toMatchObject({ kind: "invalid", code: "EC00" });
    }
  });

  it("verify rejects a correctly keyed query that the ledger does not hold", async () => {
    const { query } = await payInWindow("win-forge-1");
    const params = Object.fromEntries(new URLSearchParams(query));
    const { fgkey: _ignored, ...rest } = params;
    const forged = { ...rest, amount: "1.00" };
    const keyed = new URLSearchParams({
      ...forged,
      fgkey: computeFgkey(TEST_MERCHANT.apiKey, forged),
    }).toString();
    expect(await h.client.verify(keyed)).toMatchObject({ kind: "invalid", code: "EC00" });
  });

  it("a declined window reports NONE with the decline rescode on status_url (still verifiable)", async () => {
    const { query } = await payInWindow("win-decl-1", CARDS.insufficientFunds);
    expect(Object.fromEntries(new URLSearchParams(query))).toMatchObject({ status: "NONE", rescode: "DC51" });
    expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");
    const retrieved = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order("win-decl-1") }),
    );
    expect(retrieved.payment.status).toBe("NONE");
  });

  it("a bad card leaves the window open (HE00); a window completes once (EEEE)", async () => {
    const { fgkey } = succeeded(await h.client.ready(h.window("win-once-1")));
    expect(await h.complete(fgkey, card("4111111111111112"))).toMatchObject({
      status: 400,
      json: { rescode: "HE00" },
    });
    expect(await h.complete(fgkey, card(CARDS.visa, "202601"))).toMatchObject({
      status: 400,
      json: { rescode: "HE01" },
    });
    expect((await h.complete(fgkey, card(CARDS.visa))).status).toBe(200);
    expect(await h.complete(fgkey, card(CARDS.visa))).toMatchObject({
      status: 409,
      json: { rescode: "EEEE" },
    });
    expect(await h.complete("0".repeat(64), card(CARDS.visa))).toMatchObject({
      status: 400,
      json: { rescode: "EC00" },
    });
  });

  it("calls status_url twice under duplicateStatusUrlRate; both copies verify", async () => {
    h.sandbox.faults.configure({ duplicateStatusUrlRate: 1 });
    await payInWindow("win-twice-1");
    const queries = h.statusQueries();
    expect(queries).toHaveLength(2);
    expect(queries[0]).toBe(queries[1]);
    for (const query of queries) expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");
  });

  it("AUTHORIZE window → AUTH; capture → SALE with captured_date; settle → settled_date", async () => {
    const { fgkey } = succeeded(await h.client.ready(h.window("win-auth-1", {}, "AUTHORIZE")));
    await h.complete(fgkey, card(CARDS.visa));
    await h.sandbox.deliveries.settled();
    const status = Object.fromEntries(new URLSearchParams(h.statusQueries().at(-1)));
    expect(status).toMatchObject({ status: "AUTH", transaction_type: "AUTHORIZE" });
    const transactionId = status.transaction_id ?? "";
    await h.sandbox.clock.advance("PT1H");
    const captured = succeeded(await h.client.capture(transactionId, { payment: order("win-auth-1") }));
    expect(captured.payment).toMatchObject({ captured_date: "20260310100000", partially_cancelable: "Y" });
    // A retry of the capture answers the same capture.
    expect(
      succeeded(await h.client.capture(transactionId, { payment: order("win-auth-1") })).payment
        .captured_date,
    ).toBe("20260310100000");
    const settled = succeeded(
      await h.client.settle(transactionId, {
        payment: { order_id: "win-auth-1", currency: "USD", amount: "100.00" },
      }),
    );
    expect(settled.payment.settled_date).toBe("20260310100000");
    const retrieved = succeeded(
      await h.client.retrieve({ key_field: "order_id", payment: order("win-auth-1") }),
    );
    expect(retrieved.payment.status).toBe("SALE");
  });

  it("settle of an AUTH acquires it (AUTH → SALE); capture of a SALE is refused with ST01", async () => {
    const { fgkey } = succeeded(await h.client.ready(h.window("win-auth-2", {}, "AUTHORIZE")));
    await h.complete(fgkey, card(CARDS.visa));
    const authorised = h.sandbox.state.payments.findFinalTransaction(MID, "win-auth-2");
    expect(authorised?.status).toBe("AUTH");
    const transactionId = authorised?.transactionId ?? "";
    succeeded(
      await h.client.settle(transactionId, {
        payment: { order_id: "win-auth-2", currency: "USD", amount: "100.00" },
      }),
    );
    expect(h.sandbox.state.payments.findTransaction(MID, transactionId)).toMatchObject({
      status: "SALE",
      capturedDate: expect.any(String),
    });

    const sale = succeeded(await h.client.payment(cardPayment("win-sale-3", CARDS.visa)));
    expect(await h.client.capture(sale.transaction_id, { payment: order("win-sale-3") })).toMatchObject({
      kind: "declined",
      code: "ST01",
    });
    expect(await h.client.capture(sale.transaction_id, { payment: order("another-order") })).toMatchObject({
      kind: "invalid",
      code: "EC00",
    });
  });

  it("PAYER_AUTH window issues payer_auth_id (status AUTH); confirm PAYMENT_PA completes the sale once", async () => {
    const { fgkey } = succeeded(await h.client.ready(h.window("win-pa-1", {}, "PAYER_AUTH")));
    await h.complete(fgkey, card(CARDS.payerAuth));
    await h.sandbox.deliveries.settled();
    const query = h.statusQueries().at(-1) ?? "";
    const status = Object.fromEntries(new URLSearchParams(query));
    expect(status).toMatchObject({
      status: "AUTH",
      transaction_type: "PAYER_AUTH",
      payer_auth_id: expect.stringMatching(/^SBXPA\d{19}$/),
    });
    expect(status.transaction_id).toBeUndefined();
    expect(succeeded(await h.client.verify(query)).rescode).toBe("0000");
    const before = succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("win-pa-1") }));
    expect(before.payment.status).toBe("NONE");

    const payerAuthId = status.payer_auth_id ?? "";
    const confirm = {
      transaction_type: "PAYMENT_PA",
      payment: { ...order("win-pa-1"), payer_auth_id: payerAuthId },
    } as const;
    const confirmed = succeeded(await h.client.confirm(confirm));
    expect(confirmed).toMatchObject({
      rescode: "0000",
      mid: MID,
      payment: {
        order_id: "win-pa-1",
        email: BUYER.email,
        status: "SALE",
        transaction_id: expect.stringMatching(new RegExp(`^${TEST_MERCHANT.mid}W`)),
      },
      card_info: { card_number1: "4000", card_number4: "3220" },
    });
    expect(await h.client.confirm(confirm)).toMatchObject({
      kind: "unknown",
      reason: expect.stringContaining("EEEE"),
    });
    const after = succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("win-pa-1") }));
    expect(after.payment).toMatchObject({ status: "SALE", transaction_id: confirmed.payment.transaction_id });
  });

  it("AUTHORIZE_PA confirms to AUTH; a non-ui payment may name an unused payer_auth_id of the same card", async () => {
    const first = succeeded(await h.client.ready(h.window("win-pa-2", {}, "PAYER_AUTH")));
    const firstId = resultOf(await h.complete(first.fgkey, card(CARDS.payerAuth))).payer_auth_id ?? "";
    const confirmed = succeeded(
      await h.client.confirm({
        transaction_type: "AUTHORIZE_PA",
        payment: { ...order("win-pa-2"), payer_auth_id: firstId },
      }),
    );
    expect(confirmed.payment.status).toBe("AUTH");

    const second = succeeded(await h.client.ready(h.window("win-pa-3", {}, "PAYER_AUTH")));
    const secondId = resultOf(await h.complete(second.fgkey, card(CARDS.payerAuth))).payer_auth_id ?? "";
    const withAuth = (orderId: string, number: string) =>
      cardPayment(orderId, number, { payment: { ...order(orderId), payer_auth_id: secondId } });
    expect(await h.client.payment(withAuth("win-pa-4", CARDS.visa))).toMatchObject({
      kind: "invalid",
      code: "EC00",
    });
    expect(succeeded(await h.client.payment(withAuth("win-pa-5", CARDS.payerAuth))).status).toBe("SALE");
    expect(await h.client.payment(withAuth("win-pa-6", CARDS.payerAuth))).toMatchObject({ kind: "invalid" });
  });

  it("virtual account (P301): REGISTERED, then the deposit notice on status_url with status SALE", async () => {
    const input = h.window("win-va-1", { settings: { virtualaccount_expiry_date: "2026031518" } });
    const { fgkey } = succeeded(
      await h.client.ready({ ...input, payment: { ...input.payment, payment_method: "P301" } }),
    );
    await h.complete(fgkey);
    await h.sandbox.deliveries.settled();
    const registered = h.statusQueries().at(-1) ?? "";
    const fields = Object.fromEntries(new URLSearchParams(registered));
    expect(fields).toMatchObject({
      status: "REGISTERED",
      rescode: "0000",
      payment_method: "P301",
      virtual_account_number: expect.stringMatching(/^\d{14}$/),
      virtual_account_depositor: BUYER.name,
      virtual_account_due_date: "2026031518",
    });
    expect(succeeded(await h.client.verify(registered)).rescode).toBe("0000");
    const transactionId = fields.transaction_id ?? "";
    expect(
      succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("win-va-1") })).payment
        .status,
    ).toBe("REGISTERED");
    // Not cancellable before the deposit.
    const early = await h.client.cancel(
      transactionId,
      {
        refund: { refund_type: "F", refund_id: "va-rf-0", reason: "r" },
        payment: { ...order("win-va-1"), balance: "100.00" },
        refund_account: { user_name: "Test Buyer", bank_code: "001", account_number: "12345" },
        tax: { amount_tax_free: "0", amount_taxable: "100.00", amount_vat: "0", amount_service_fee: "0" },
      },
      { fundingKind: "virtual_account" },
    );
    expect(early).toMatchObject({ kind: "declined", code: "ST01" });

    expect(await callSandbox(h.sandbox, `/sandbox/deposits/${transactionId}`)).toMatchObject({ status: 200 });
    await h.sandbox.deliveries.settled();
    const notice = h.statusQueries().at(-1) ?? "";
    expect(Object.fromEntries(new URLSearchParams(notice))).toMatchObject({
      status: "SALE",
      transaction_id: transactionId,
    });
    expect(succeeded(await h.client.verify(notice)).rescode).toBe("0000");
    expect(
      succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("win-va-1") })).payment
        .status,
    ).toBe("SALE");
    expect(await callSandbox(h.sandbox, `/sandbox/deposits/${transactionId}`)).toMatchObject({
      json: { rescode: "ST01" },
    });
    // A virtual-account cancel needs the refund account (raw: the client would not send it without).
    const raw = await callSandbox(h.sandbox, `/v1/payments/${transactionId}/cancel`, {
      body: {
        mid: MID,
        refund: { refund_type: "F", refund_id: "va-rf-1", reason: "r" },
        payment: { ...order("win-va-1"), balance: "100.00" },
      },
    });
    expect(raw).toMatchObject({
      status: 400,
      json: { rescode: "EC00", resmsg: expect.stringContaining("refund_account") },
    });
  });

  it("a non-ui virtual-account payment is REGISTERED with its deposit account", async () => {
    const paid = succeeded(
      await h.client.payment({
        payment: { ...order("va-nonui-1"), payment_method: "P301" },
        buyer: BUYER,
        url: { status_url: h.statusUrl },
      }),
    );
    expect(paid).toMatchObject({ status: "REGISTERED", virtual_account_bank_name: "SANDBOX BANK" });
    await callSandbox(h.sandbox, `/sandbox/deposits/${paid.transaction_id}`);
    await h.sandbox.deliveries.settled();
    expect(Object.fromEntries(new URLSearchParams(h.statusQueries().at(-1)))).toMatchObject({
      status: "SALE",
      order_id: "va-nonui-1",
    });
  });
});
