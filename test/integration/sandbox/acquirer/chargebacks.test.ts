import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../../../functions/gateway/webhook-signature";
import { triggerChargeback } from "../../../../sandbox/acquirer/chargebacks";
import { type Sandbox, startSandbox } from "../../../../sandbox/server";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import { type RecordingServer, startRecordingServer } from "../../../support/recording-server";
import {
  callSandbox,
  recordPayment,
  recordRefund,
  sandboxGatewayClient,
} from "../../../support/sandbox-gateway";

const START = new Date("2026-06-01T00:00:00.000Z");
const ACK = { json: { rescode: "0000", resmsg: "Success" } };
const NACK = { json: { rescode: "XXXX", resmsg: "signature_fail" } };

describe("sandbox chargebacks and CHARGEBACK webhooks", () => {
  let receiver: RecordingServer;
  let sandbox: Sandbox;
  let hookUrl: string;

  beforeAll(async () => {
    receiver = await startRecordingServer();
    hookUrl = `${receiver.url}/webhooks/gateway`;
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    receiver.reset();
    receiver.respondWith(() => ACK);
    sandbox = await startSandbox({ start: START });
    const reply = await callSandbox(sandbox, "/sandbox/webhooks/chargeback-url", {
      method: "PUT",
      body: { url: hookUrl },
    });
    expect(reply).toMatchObject({ status: 200, json: { mid: TEST_MERCHANT.mid, url: hookUrl } });
  });
  afterEach(() => sandbox.close());

  const chargeback = (transactionId: string, extra: Record<string, string> = {}) =>
    callSandbox(sandbox, "/sandbox/webhooks/chargeback", {
      body: { transaction_id: transactionId, ...extra },
    });

  it("reports the chargeback on the payment and delivers the real gateway's signed CHARGEBACK webhook", async () => {
    const payment = recordPayment(sandbox, { orderId: "cb-1", amount: "80.00" });
    recordRefund(sandbox, payment, "cb-rf-1", "20.00");
    await sandbox.clock.advance("PT3H");
    const revision = sandbox.state.revision;
    const reply = await chargeback(payment.transactionId, { reason: "Fraud" });
    expect(reply).toMatchObject({ status: 200, json: { rescode: "0000", webhook_url: hookUrl } });
    expect(sandbox.state.revision).toBe(revision + 1);
    // Reported: the balance is disputed, not yet taken. Korea time: 03:00 UTC is noon there.
    expect(sandbox.state.payments.findTransaction(TEST_MERCHANT.mid, payment.transactionId)).toMatchObject({
      balance: "60.00",
      chargeback: {
        amount: "60.00",
        reason: "Fraud",
        status: "REPORTED",
        chargebackDate: "20260601120000",
        deadline: "20260622",
      },
    });

    await sandbox.deliveries.settled();
    const [request] = receiver.requests;
    if (!request) throw new Error("no webhook received");
    expect(request.headers["eximbay-webhook-transmission-time"]).toBe("2026-06-01T12:00:00.000+09:00");
    expect(JSON.parse(request.body)).toEqual({
      type: "CHARGEBACK",
      data: {
        mid: TEST_MERCHANT.mid,
        order_id: "cb-1",
        transaction_id: payment.transactionId,
        currency: "USD",
        amount: "80.00",
        payment_method: "P000",
        auth_code: expect.any(String),
        transaction_date: payment.transactionDate,
        pay_to: "SANDBOX",
        param1: "p1-cb-1",
        param2: "",
        param3: "",
        payer_authentication_flag: "N",
        refund_flag: "Y",
        chargeback_status: "REPORTED",
        chargeback_reason: "Fraud",
        chargeback_report_date: "20260601",
        chargeback_deadline: "20260622",
        chargeback_resolve_date: "",
        chargeback_deduct_date: "",
      },
    });
    const verification = verifyWebhook({
      rawBody: request.body,
      headers: request.headers,
      secrets: [TEST_MERCHANT.webhookSecret],
      now: sandbox.clock.now(),
    });
    expect(verification).toEqual({ ok: true });
    expect(
      verifyWebhook({
        rawBody: request.body,
        headers: request.headers,
        secrets: ["another"],
        now: sandbox.clock.now(),
      }),
    ).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("re-sends hourly while the receiver answers non-0000 and stops at the first 0000", async () => {
    let replies = 0;
    receiver.respondWith(() => (++replies <= 2 ? NACK : ACK));
    const payment = recordPayment(sandbox, { orderId: "cb-2", amount: "10" });
    await chargeback(payment.transactionId);
    await sandbox.deliveries.settled();
    expect(receiver.requests).toHaveLength(1);
    await sandbox.clock.advance("PT59M");
    expect(receiver.requests).toHaveLength(1);
    await sandbox.clock.advance("PT1M");
    expect(receiver.requests).toHaveLength(2);
    await sandbox.clock.advance("P1D");
    expect(receiver.requests).toHaveLength(3);
    expect(
      sandbox.deliveries.entries("webhook").map((entry) => [entry.attempt, entry.at, entry.acknowledged]),
    ).toEqual([
      [1, "2026-06-01T00:00:00.000Z", false],
      [2, "2026-06-01T01:00:00.000Z", false],
      [3, "2026-06-01T02:00:00.000Z", true],
    ]);
    expect(new Set(receiver.requests.map((request) => request.body)).size).toBe(1);
  });

  it("re-sends at most 3 times when never acknowledged", async () => {
    receiver.respondWith(() => NACK);
    const payment = recordPayment(sandbox, { orderId: "cb-3", amount: "10" });
    await chargeback(payment.transactionId);
    await sandbox.deliveries.settled(); // the first send completes before the clock moves
    await sandbox.clock.advance("P2D");
    expect(receiver.requests).toHaveLength(4);
    // Nothing left but the chargeback's own deadline.
    expect(sandbox.clock.pending().map((task) => task.label)).toEqual([
      `chargeback ${payment.transactionId} DEDUCTION`,
    ]);
  });

  it("at its deadline the chargeback is deducted (the balance taken) or resolved, and announced again", async () => {
    const deducted = recordPayment(sandbox, { orderId: "cb-12", amount: "30.00" });
    const resolved = recordPayment(sandbox, { orderId: "cb-13", amount: "15.00" });
    await chargeback(deducted.transactionId);
    await chargeback(resolved.transactionId, { outcome: "RESOLVED" });
    await sandbox.clock.advance("P20D");
    await sandbox.deliveries.settled();
    expect(receiver.requests).toHaveLength(2);
    await sandbox.clock.advance("P1D");
    await sandbox.deliveries.settled();
    const statuses = receiver.requests.map((request) => {
      const { order_id, chargeback_status, chargeback_deduct_date, chargeback_resolve_date } = JSON.parse(
        request.body,
      ).data;
      return [order_id, chargeback_status, chargeback_deduct_date, chargeback_resolve_date];
    });
    expect(statuses).toEqual([
      ["cb-12", "REPORTED", "", ""],
      ["cb-13", "REPORTED", "", ""],
      ["cb-12", "DEDUCTION", "20260622", ""],
      ["cb-13", "RESOLVED", "", "20260622"],
    ]);
    const find = (id: string) => sandbox.state.payments.findTransaction(TEST_MERCHANT.mid, id);
    expect(find(deducted.transactionId)).toMatchObject({
      balance: "0.00",
      chargeback: { status: "DEDUCTION", amount: "30.00", deductedDate: "20260622090000" },
    });
    expect(find(resolved.transactionId)).toMatchObject({
      balance: "15.00",
      chargeback: { status: "RESOLVED", resolvedDate: "20260622090000" },
    });
  });

  it("can be triggered from a clock task with the sandbox's services", async () => {
    const payment = recordPayment(sandbox, { orderId: "cb-4", amount: "25.00" });
    const deps = {
      ledger: sandbox.state,
      clock: sandbox.clock,
      scheduler: sandbox.clock.scope(),
      deliver: sandbox.deliveries,
      merchants: sandbox.merchants,
    };
    const results: unknown[] = [];
    sandbox.clock.schedule(new Date(START.getTime() + 86_400_000), () => {
      results.push(triggerChargeback(deps, TEST_MERCHANT.mid, payment.transactionId));
    });
    await sandbox.clock.advance("P1D");
    await sandbox.deliveries.settled();
    expect(results).toEqual([
      {
        ok: true,
        value: {
          chargeback: expect.objectContaining({ amount: "25.00", chargebackDate: "20260602090000" }),
          webhookUrl: hookUrl,
        },
      },
    ]);
    expect(receiver.requests.map((request) => JSON.parse(request.body).data.transaction_id)).toEqual([
      payment.transactionId,
    ]);
  });

  it("refuses unknown, uncaptured, fully refunded and already charged-back payments", async () => {
    const sale = recordPayment(sandbox, { orderId: "cb-5", amount: "10" });
    const auth = recordPayment(sandbox, { orderId: "cb-6", amount: "10", status: "AUTH" });
    const refunded = recordPayment(sandbox, { orderId: "cb-7", amount: "10" });
    recordRefund(sandbox, refunded, "cb-rf-7");
    expect((await chargeback(sale.transactionId)).status).toBe(200);
    expect(await chargeback(sale.transactionId)).toMatchObject({
      status: 409,
      json: { resmsg: "Chargeback refused: already_charged_back" },
    });
    for (const payment of [auth, refunded]) {
      expect(await chargeback(payment.transactionId)).toMatchObject({
        status: 409,
        json: { resmsg: "Chargeback refused: not_chargeable" },
      });
    }
    expect(await chargeback("SBXT99999999999999999999")).toMatchObject({
      status: 400,
      json: { rescode: "EC1002" },
    });
    expect(await chargeback("short")).toMatchObject({
      status: 400,
      json: { rescode: "EC00", resmsg: "Invalid parameter: transaction_id" },
    });
    await sandbox.deliveries.settled();
    expect(receiver.requests).toHaveLength(1);
  });

  it("records but sends nothing when the merchant has no chargeback URL", async () => {
    await sandbox.close();
    sandbox = await startSandbox({ start: START });
    const payment = recordPayment(sandbox, { orderId: "cb-8", amount: "10" });
    expect(await chargeback(payment.transactionId)).toMatchObject({
      status: 200,
      json: { webhook_url: null },
    });
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.entries()).toEqual([]);
  });

  it("delivers out of order under the outOfOrderWebhook fault", async () => {
    sandbox.faults.configure({ outOfOrderWebhookRate: 1 });
    const first = recordPayment(sandbox, { orderId: "cb-9", amount: "10" });
    const second = recordPayment(sandbox, { orderId: "cb-10", amount: "10" });
    await chargeback(first.transactionId);
    await chargeback(second.transactionId);
    await sandbox.deliveries.settled();
    expect(receiver.requests.map((request) => JSON.parse(request.body).data.order_id)).toEqual([
      "cb-10",
      "cb-9",
    ]);
  });

  it("shows the deducted chargeback in reconciliation: T200 in transactions, trade type C in settlements", async () => {
    const payment = recordPayment(sandbox, { orderId: "cb-11", amount: "40.00" });
    await sandbox.clock.advance("PT1H");
    await chargeback(payment.transactionId);
    await sandbox.clock.set(new Date("2026-06-25T00:00:00.000Z"));
    const client = sandboxGatewayClient(sandbox);
    const rows = async (from: string, to: string) => {
      const transactions = await client.reconciliation.transactions(from, to);
      return (
        transactions.kind === "success" && transactions.value.D.map((r) => [r.trade_type, r.request_amount])
      );
    };
    // Reported on 1 June, deducted at its deadline on 22 June (Korea time).
    expect(await rows("20260601", "20260601")).toEqual([["T000", "40.00"]]);
    expect(await rows("20260622", "20260622")).toEqual([["T200", "-40.00"]]);
    const recordsOf = async (day: string) => {
      const settlements = await client.reconciliation.settlements(day);
      const [remittance] = settlements.kind === "success" ? settlements.value.remittances : [];
      return remittance?.records.map((r) => [r.trade_type, r.transaction_type, r.request_sub_amount_total]);
    };
    expect(await recordsOf("20260603")).toEqual([["N", "S", "38.50"]]);
    expect(await recordsOf("20260624")).toEqual([["C", "R", "-40.00"]]);
  });
});
