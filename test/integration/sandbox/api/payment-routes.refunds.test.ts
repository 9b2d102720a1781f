import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import {
  CARDS,
  cardPayment,
  order,
  type PaymentHarness,
  startPaymentHarness,
  succeeded,
} from "../../../support/payment-sandbox";
import { callSandbox } from "../../../support/sandbox-gateway";

const MID = TEST_MERCHANT.mid;

describe("sandbox cancel, refund look-ups and receipts (client contract)", () => {
  let h: PaymentHarness;

  beforeAll(async () => {
    h = await startPaymentHarness();
  });
  afterAll(() => h.close());

  async function sale(orderId: string) {
    return succeeded(await h.client.payment(cardPayment(orderId, CARDS.visa))).transaction_id;
  }

  /** A cancel as the client sends it; `balance` is what the merchant believes is left. */
  const refund = (
    orderId: string,
    refundId: string,
    type: "F" | "P",
    amount?: string,
    balance = "100.00",
  ) => ({
    refund: { refund_type: type, refund_id: refundId, reason: "customer asked", refund_amount: amount },
    payment: { ...order(orderId), balance },
  });

  it("partial cancels lower the balance; the balance never goes below zero; a full cancel takes the rest", async () => {
    const transactionId = await sale("rf-1");
    const first = succeeded(await h.client.cancel(transactionId, refund("rf-1", "rf-1-a", "P", "30.00")));
    expect(first).toMatchObject({
      rescode: "0000",
      mid: MID,
      refund: {
        refund_amount: "30.00",
        refund_id: "rf-1-a",
        refund_date: "20260310090000",
        refund_transaction_id: expect.stringMatching(/^SBXR\d{20}$/),
      },
      payment: { order_id: "rf-1", transaction_id: transactionId, amount: "100.00", balance: "70.00" },
    });
    // The merchant's stale balance lets the client send 80; the gateway's balance (70) refuses it.
    expect(await h.client.cancel(transactionId, refund("rf-1", "rf-1-b", "P", "80.00"))).toMatchObject({
      kind: "invalid",
      code: "HE03",
    });
    const rest = succeeded(
      await h.client.cancel(transactionId, refund("rf-1", "rf-1-c", "F", undefined, "70.00")),
    );
    expect(rest.payment.balance).toBe("0.00");
    expect(rest.refund.refund_amount).toBe("70.00");
    expect(await h.client.cancel(transactionId, refund("rf-1", "rf-1-d", "P", "0.01"))).toMatchObject({
      kind: "invalid",
      code: "HE03",
    });
    const retrieved = succeeded(await h.client.retrieve({ key_field: "order_id", payment: order("rf-1") }));
    expect(retrieved.payment).toMatchObject({ status: "SALE", balance: "0.00" });
  });

  it("retrieve by refund_id: PARTIAL_REFUND or REFUND with the refund fields; unknown → NONE", async () => {
    const transactionId = await sale("rf-2");
    const partial = succeeded(await h.client.cancel(transactionId, refund("rf-2", "rf-2-a", "P", "25.50")));
    succeeded(await h.client.cancel(transactionId, refund("rf-2", "rf-2-b", "F", undefined, "74.50")));
    const lookUp = (refundId: string) =>
      h.client.retrieve({
        key_field: "refund_id",
        payment: { ...order("rf-2"), transaction_id: transactionId, refund_id: refundId },
      });
    expect(succeeded(await lookUp("rf-2-a")).payment).toMatchObject({
      status: "PARTIAL_REFUND",
      transaction_id: transactionId,
      refund_id: "rf-2-a",
      refund_transaction_id: partial.refund.refund_transaction_id,
      refund_amount: "25.50",
      balance: "74.50",
    });
    expect(succeeded(await lookUp("rf-2-b")).payment).toMatchObject({
      status: "REFUND",
      refund_amount: "74.50",
      balance: "0.00",
    });
    expect(succeeded(await lookUp("rf-2-zzz")).payment.status).toBe("NONE");
  });

  it("a repeated identical cancel answers the original refund; another cancel with that refund_id is EC00", async () => {
    const transactionId = await sale("rf-3");
    const input = refund("rf-3", "rf-3-a", "P", "10.00");
    const first = succeeded(await h.client.cancel(transactionId, input));
    const revision = h.sandbox.state.revision;
    const again = succeeded(await h.client.cancel(transactionId, input));
    expect(again).toEqual(first);
    expect(h.sandbox.state.revision).toBe(revision);
    expect(await h.client.cancel(transactionId, refund("rf-3", "rf-3-a", "P", "20.00"))).toMatchObject({
      kind: "invalid",
      code: "EC00",
      message: expect.stringContaining("refund.refund_id"),
    });
    const other = await sale("rf-3-other");
    expect(await h.client.cancel(other, refund("rf-3-other", "rf-3-a", "P", "10.00"))).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("refund.refund_id"),
    });
  });

  it("a cancel naming another order is refused (EC00 payment.order_id); an unknown transaction is EC1002", async () => {
    const transactionId = await sale("rf-4");
    expect(await h.client.cancel(transactionId, refund("rf-4-wrong", "rf-4-a", "F"))).toMatchObject({
      kind: "invalid",
      code: "EC00",
      message: expect.stringContaining("payment.order_id"),
    });
    expect(await h.client.cancel("SBXT99999999999999999999", refund("rf-4", "rf-4-b", "F"))).toMatchObject({
      kind: "invalid",
      code: "EC1002",
    });
    // Not 24 characters: the client refuses to send it, the gateway answers EC1002.
    const raw = await callSandbox(h.sandbox, "/v1/payments/SHORT/cancel", {
      body: { mid: MID, ...refund("rf-4", "rf-4-c", "F") },
    });
    expect(raw).toMatchObject({ status: 400, json: { rescode: "EC1002" } });
    expect(h.sandbox.state.payments.findTransaction(MID, transactionId)?.balance).toBe("100.00");
  });

  it("a declined (NONE) transaction cannot be cancelled: ST01", async () => {
    const declined = await h.client.payment(cardPayment("rf-5", CARDS.insufficientFunds));
    expect(declined.kind).toBe("declined");
    const transactionId = h.sandbox.state.payments.findOrder(MID, "rf-5")?.transactionId ?? "";
    expect(await h.client.cancel(transactionId, refund("rf-5", "rf-5-a", "F"))).toMatchObject({
      kind: "declined",
      code: "ST01",
    });
  });

  it("receipt-url answers a receipt link for the payment's e-mail only; the link serves the receipt", async () => {
    const transactionId = await sale("rc-1");
    const receipt = succeeded(await h.client.receiptUrl(transactionId, { email: "Buyer@Example.com" }));
    expect(receipt.receipt_url).toBe(`${h.sandbox.url}/sandbox/receipts/${transactionId}`);
    const page = await fetch(receipt.receipt_url ?? "");
    expect(await page.json()).toMatchObject({
      receipt: { transaction_id: transactionId, card_number4: "1111", amount: "100.00" },
    });
    expect(await h.client.receiptUrl(transactionId, { email: "someone@example.com" })).toMatchObject({
      kind: "invalid",
      code: "EC00",
    });
    expect(
      await h.client.receiptUrl("SBXT99999999999999999999", { email: "buyer@example.com" }),
    ).toMatchObject({
      kind: "invalid",
      code: "EC1002",
    });
  });
});
