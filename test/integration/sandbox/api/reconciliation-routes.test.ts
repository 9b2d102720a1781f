import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayRequestError } from "../../../../functions/gateway/errors";
import type { SettlementRemittance } from "../../../../functions/gateway/schemas/reconciliation";
import { type Sandbox, startSandbox } from "../../../../sandbox/server";
import { addAmounts, compareAmounts } from "../../../../sandbox/shared/decimal";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import {
  callSandbox,
  countingFetch,
  recordPayment,
  recordRefund,
  sandboxGatewayClient,
} from "../../../support/sandbox-gateway";

const START = new Date("2026-06-01T09:00:00.000Z");
const DAY_MS = 86_400_000;
const MID = TEST_MERCHANT.mid;
const TRANSACTIONS_CALL = "POST /v1/reconciliation/transactions";

const total = (amounts: readonly string[]) => amounts.reduce(addAmounts, "0");

function success<T>(outcome: { kind: string; value?: T }): T {
  if (outcome.kind !== "success" || outcome.value === undefined) {
    throw new Error(`expected success, got ${JSON.stringify(outcome)}`);
  }
  return outcome.value;
}

/** Every remittance adds up: records → header, and the header's own totals. */
function expectConsistent(remittance: SettlementRemittance): void {
  const { header, records } = remittance;
  expect(remittance.total_count).toBe(String(records.length));
  expect(header.version).toBe("200");
  for (const r of records) {
    const fees = [r.service_fee_amount, r.service_fee_vat_amount, r.fee_amount, r.fee_vat_amount];
    expect(compareAmounts(total([r.billed_exchange_rate_amount, ...fees]), r.request_sub_amount_total)).toBe(
      0,
    );
    expect(fees.every((fee) => compareAmounts(fee, "0") <= 0)).toBe(true);
  }
  const subTotals = total(records.map((r) => r.request_sub_amount_total));
  expect(compareAmounts(subTotals, header.remittance_amount)).toBe(0);
  const headerSum = total([
    header.settle_amount,
    header.vat_fee_amount,
    header.etc_vat_amount,
    header.adjust_amount,
  ]);
  expect(compareAmounts(headerSum, header.remittance_amount)).toBe(0);
  expect(header.deposit_amount).toBe(header.remittance_amount);
}

describe("sandbox reconciliation API through the gateway client", () => {
  let sandbox: Sandbox;
  const counter = countingFetch();

  beforeAll(async () => {
    sandbox = await startSandbox({ start: START });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    counter.calls.length = 0;
  });

  describe("transactions", () => {
    // Thirty days of June 2026: a payment each day but none on 8–14 June; refunds on some days.
    const expected: { id: string; amount: string; type: string }[] = [];

    beforeAll(async () => {
      await sandbox.clock.set(START);
      for (let day = 1; day <= 30; day++) {
        if (day >= 8 && day <= 14) continue;
        await sandbox.clock.set(new Date(START.getTime() + (day - 1) * DAY_MS));
        const payment = recordPayment(sandbox, { orderId: `tx-${day}`, amount: `${day}0.50` });
        expected.push({ id: payment.transactionId, amount: payment.amount, type: "T000" });
        if (day % 5 === 0) {
          await sandbox.clock.advance("PT1H");
          const refund = recordRefund(sandbox, payment, `rf-p-${day}`, "1.25");
          expected.push({ id: refund.refundTransactionId, amount: "-1.25", type: "T101" });
        }
        if (day === 21) {
          await sandbox.clock.advance("PT2H");
          const refund = recordRefund(sandbox, payment, `rf-f-${day}`);
          expected.push({ id: refund.refundTransactionId, amount: `-${payment.amount}`, type: "T100" });
        }
      }
      // Outside the range: must not appear.
      await sandbox.clock.set(new Date("2026-07-01T00:00:01.000Z"));
      recordPayment(sandbox, { orderId: "tx-july", amount: "5" });
      await sandbox.clock.set(new Date("2026-07-02T12:00:00.000Z"));
    });

    it("answers a 30-day range split by the client into 7-day requests, matching the ledger", async () => {
      const client = sandboxGatewayClient(sandbox, { fetchImpl: counter.fetchImpl });
      const result = success(await client.reconciliation.transactions("20260601", "20260630"));
      expect(counter.count(TRANSACTIONS_CALL)).toBe(5);
      expect(result.H).toEqual({ request_date: "20260702", from_date: "20260601", to_date: "20260630" });
      expect(result.T.total_count).toBe(String(expected.length));
      expect(result.D.map((r) => [r.transaction_id, r.request_amount, r.trade_type])).toEqual(
        expected.map((e) => [e.id, e.amount, e.type]),
      );
      const tradeDates = result.D.map((r) => r.trade_date);
      expect(tradeDates).toEqual([...tradeDates].sort());
      expect(
        result.D.every((r) => r.trade_date >= "20260601000000" && r.trade_date <= "20260630235959"),
      ).toBe(true);
      // The window without trades answers a resmsg entry, read by the client as a notice.
      expect(result.notices).toEqual(["No data"]);
      const net = total(expected.map((e) => e.amount));
      expect(compareAmounts(total(result.D.map((r) => r.request_amount)), net)).toBe(0);
    });

    it("links refunds to their payment and carries the payment's fields", async () => {
      const client = sandboxGatewayClient(sandbox);
      const result = success(await client.reconciliation.transactions("20260605", "20260605"));
      const [sale, refund] = result.D;
      expect(sale).toMatchObject({
        trade_date: "20260605180000",
        trade_type: "T000",
        mid: MID,
        order_id: "tx-5",
        request_currency: "USD",
        request_amount: "50.50",
        payment_method: "P000",
        param1: "p1-tx-5",
        param2: "",
        param3: "",
      });
      expect(sale?.original_transaction_id).toBe(sale?.transaction_id);
      expect(refund).toMatchObject({
        trade_date: "20260605190000",
        trade_type: "T101",
        order_id: "tx-5",
        original_transaction_id: sale?.transaction_id,
        request_amount: "-1.25",
      });
      expect(refund?.transaction_id).toMatch(/^SBXR\d{20}$/);
    });

    it("refuses more than 7 days, an inverted range and another mid with EC00 naming the field", async () => {
      const cases = [
        [{ mid: MID, from_date: "20260601", to_date: "20260608" }, "to_date"],
        [{ mid: MID, from_date: "20260610", to_date: "20260609" }, "from_date"],
        [{ mid: "OTHERMID", from_date: "20260601", to_date: "20260607" }, "mid"],
        [{ mid: MID, from_date: "2026-06-01", to_date: "20260607" }, "from_date"],
      ] as const;
      for (const [body, field] of cases) {
        const reply = await callSandbox(sandbox, "/v1/reconciliation/transactions", { body });
        expect(reply).toEqual({
          status: 400,
          json: { rescode: "EC00", resmsg: `Invalid parameter: ${field}` },
        });
      }
      const seven = { mid: MID, from_date: "20260601", to_date: "20260607" };
      expect((await callSandbox(sandbox, "/v1/reconciliation/transactions", { body: seven })).status).toBe(
        200,
      );
    });

    it("refuses a from_date older than 5 years by the sandbox clock (the client refuses it before sending)", async () => {
      // The sandbox's today is 2026-07-02: 2021-07-02 is the oldest day it answers.
      const lagging = sandboxGatewayClient(sandbox, {
        fetchImpl: counter.fetchImpl,
        now: () => new Date("2025-07-02T12:00:00.000Z"),
      });
      expect(await lagging.reconciliation.transactions("20210701", "20210707")).toEqual({
        kind: "invalid",
        code: "EC00",
        message: "Invalid parameter: from_date",
      });
      expect(success(await lagging.reconciliation.transactions("20210702", "20210708")).D).toEqual([]);
      expect(counter.count(TRANSACTIONS_CALL)).toBe(2);

      const synced = sandboxGatewayClient(sandbox, { fetchImpl: counter.fetchImpl });
      await expect(synced.reconciliation.transactions("20210701", "20210707")).rejects.toThrow(
        GatewayRequestError,
      );
      expect(counter.count(TRANSACTIONS_CALL)).toBe(2);
    });

    it("refuses a request without the merchant's Basic credentials", async () => {
      const body = { mid: MID, from_date: "20260601", to_date: "20260607" };
      const reply = await callSandbox(sandbox, "/v1/reconciliation/transactions", {
        body,
        headers: { authorization: "Basic d3Jvbmc6" },
      });
      expect(reply).toMatchObject({ status: 401, json: { rescode: "EC1000" } });
    });
  });

  describe("settlements and expected settlements", () => {
    // Trades of 10 August 2026 are remitted on 12 August, one remittance per currency.
    const TRADE_DAY = new Date("2026-08-10T03:00:00.000Z");

    beforeAll(async () => {
      await sandbox.clock.set(TRADE_DAY);
      const large = recordPayment(sandbox, { orderId: "st-usd-1", amount: "100.00" });
      recordPayment(sandbox, { orderId: "st-usd-2", amount: "19.99" });
      recordPayment(sandbox, { orderId: "st-eur-1", amount: "50", currency: "EUR" });
      recordPayment(sandbox, { orderId: "st-jpy-1", amount: "1005", currency: "JPY" });
      recordPayment(sandbox, { orderId: "st-auth", amount: "70.00", status: "AUTH" }); // not captured: not settled
      await sandbox.clock.advance("PT5H");
      recordRefund(sandbox, large, "st-rf-1", "30.00");
      // 11 August: one USD payment only → a single remittance on 13 August.
      await sandbox.clock.set(new Date("2026-08-11T10:00:00.000Z"));
      recordPayment(sandbox, { orderId: "st-usd-3", amount: "10.00" });
    });

    it("answers several remittances as arrays, which the client normalises, with consistent fees and totals", async () => {
      await sandbox.clock.set(new Date("2026-08-13T00:00:00.000Z"));
      const raw = await callSandbox(sandbox, "/v1/reconciliation/settlements", {
        body: { mid: MID, remittance_date: "20260812" },
      });
      expect(raw.json).toMatchObject({ H: expect.any(Array), D: expect.any(Array), T: expect.any(Array) });

      const client = sandboxGatewayClient(sandbox);
      const { remittances } = success(await client.reconciliation.settlements("20260812"));
      expect(
        remittances.map((r) => [r.header.settle_currency, r.header.remittance_amount, r.total_count]),
      ).toEqual([
        ["EUR", "48.13", "1"],
        ["JPY", "968", "1"],
        ["USD", "85.50", "3"],
      ]);
      remittances.forEach(expectConsistent);
      const usd = remittances[2];
      expect(usd?.header).toEqual({
        request_date: "20260813",
        remittance_date: "20260812",
        version: "200",
        settle_date: "20260810",
        settle_currency: "USD",
        settle_amount: "85.91",
        vat_fee_amount: "-0.41",
        etc_vat_amount: "0.00",
        adjust_amount: "0.00",
        remittance_amount: "85.50",
        exchange_rate: "1",
        deposit_currency: "USD",
        deposit_amount: "85.50",
      });
      expect(
        usd?.records.map((r) => [
          r.order_id,
          r.transaction_type,
          r.request_amount,
          r.service_fee_amount,
          r.service_fee_vat_amount,
          r.request_sub_amount_total,
        ]),
      ).toEqual([
        ["st-usd-1", "S", "100.00", "-3.40", "-0.34", "96.26"],
        ["st-usd-2", "S", "19.99", "-0.68", "-0.07", "19.24"],
        ["st-usd-1", "P", "-30.00", "0.00", "0.00", "-30.00"],
      ]);
      expect(usd?.records[0]).toMatchObject({
        trade_type: "N",
        mid: MID,
        billed_type: "R",
        billed_exchange_rate: "1",
        approval_currency: "USD",
        approval_amount: "100.00",
        fee_amount: "0.00",
        service_fee_supply_amount: "-3.40",
      });
      expect(remittances[1]?.records[0]).toMatchObject({
        service_fee_amount: "-34",
        service_fee_vat_amount: "-3",
      });
    });

    it("answers a single remittance as single objects, read the same way by the client", async () => {
      await sandbox.clock.set(new Date("2026-08-14T00:00:00.000Z"));
      const raw = await callSandbox(sandbox, "/v1/reconciliation/settlements", {
        body: { mid: MID, remittance_date: "20260813" },
      });
      expect(raw.json).toMatchObject({
        rescode: "0000",
        H: { settle_currency: "USD", remittance_amount: "9.63" },
        T: { total_count: "1" },
        D: [{ order_id: "st-usd-3" }],
      });
      const { remittances } = success(
        await sandboxGatewayClient(sandbox).reconciliation.settlements("20260813"),
      );
      expect(remittances).toHaveLength(1);
      remittances.forEach(expectConsistent);
    });

    it("answers empty arrays for a day without remittance", async () => {
      const client = sandboxGatewayClient(sandbox);
      expect(success(await client.reconciliation.settlements("20260801")).remittances).toEqual([]);
    });

    it("makes settlements available from the day after the remittance date", async () => {
      // The gateway's days are Korea's: 14:59:59 UTC is the last second of 12 August there.
      await sandbox.clock.set(new Date("2026-08-12T14:59:59.000Z"));
      const client = sandboxGatewayClient(sandbox);
      expect(await client.reconciliation.settlements("20260812")).toEqual({
        kind: "invalid",
        code: "EC00",
        message: "Invalid parameter: remittance_date",
      });
      await sandbox.clock.advance(1000);
      expect(success(await client.reconciliation.settlements("20260812")).remittances).toHaveLength(3);
    });

    it("answers expected settlements of the trades two days earlier, from the remittance date on", async () => {
      await sandbox.clock.set(new Date("2026-08-11T14:00:00.000Z"));
      const client = sandboxGatewayClient(sandbox);
      expect(await client.reconciliation.expectedSettlements("20260812")).toMatchObject({
        kind: "invalid",
        code: "EC00",
        message: "Invalid parameter: pre_remittance_date",
      });
      await sandbox.clock.set(new Date("2026-08-11T15:00:00.000Z"));
      const expectedRemittances = success(
        await client.reconciliation.expectedSettlements("20260812"),
      ).remittances;
      expect(expectedRemittances.map((r) => r.header)).toContainEqual({
        request_date: "20260812",
        pre_remittance_date: "20260812",
        version: "200",
        pre_settle_date: "20260810",
        settle_currency: "USD",
        settle_amount: "85.91",
        adjust_amount: "0.00",
        remittance_amount: "85.50",
      });
      await sandbox.clock.set(new Date("2026-08-12T15:00:00.000Z"));
      const settled = success(await client.reconciliation.settlements("20260812")).remittances;
      expect(expectedRemittances.map((r) => r.records)).toEqual(settled.map((r) => r.records));
    });
  });
});
