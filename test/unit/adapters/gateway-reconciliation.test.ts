import { describe, expect, it } from "vitest";
import {
  createGatewaySettlements,
  createGatewayTransactions,
} from "../../../functions/adapters/outside/gateway-reconciliation";
import type {
  SettlementHeader,
  SettlementRecord,
  TransactionRecord,
} from "../../../functions/gateway/schemas/reconciliation";

const listed = (overrides: Partial<TransactionRecord>): TransactionRecord => ({
  trade_date: "20270310100000",
  trade_type: "T000",
  mid: "SBXTEST001",
  transaction_id: "T1",
  original_transaction_id: "T1",
  order_id: "sub_1-1-0",
  request_currency: "USD",
  request_amount: "19.90",
  payment_method: "P000",
  param1: "",
  param2: "",
  param3: "",
  ...overrides,
});

const answering = (D: TransactionRecord[]) =>
  createGatewayTransactions({
    transactions: async (from, to) => ({
      kind: "success",
      value: {
        H: { request_date: to, from_date: from, to_date: to },
        D,
        T: { total_count: String(D.length) },
        notices: ["no data"],
      },
    }),
  });

describe("createGatewayTransactions", () => {
  it("reads payments (their own original, or none) and reversals (naming the payment) in the core's words", async () => {
    const transactions = answering([
      listed({}),
      listed({ transaction_id: "T2", original_transaction_id: "", order_id: "sub_2-1-0" }),
      listed({
        transaction_id: "R1",
        original_transaction_id: "T1",
        request_amount: "-5.00",
        trade_date: "20270311020304",
      }),
    ]);
    expect(await transactions("20270310", "20270311")).toEqual({
      kind: "success",
      value: {
        records: [
          {
            transaction_id: "T1",
            order_id: "sub_1-1-0",
            amount: "19.90",
            day: "20270310",
            at: "20270310100000",
          },
          {
            transaction_id: "T2",
            order_id: "sub_2-1-0",
            amount: "19.90",
            day: "20270310",
            at: "20270310100000",
          },
          {
            transaction_id: "R1",
            reverses: "T1",
            order_id: "sub_1-1-0",
            amount: "-5.00",
            day: "20270311",
            at: "20270311020304",
          },
        ],
        notices: ["no data"],
      },
    });
  });

  it("passes a failure on as it came", async () => {
    const transactions = createGatewayTransactions({
      transactions: async () => ({ kind: "unavailable", reason: "HTTP 503", status: 503 }),
    });
    expect(await transactions("20270310", "20270310")).toEqual({
      kind: "unavailable",
      reason: "HTTP 503",
      status: 503,
    });
  });
});

const settled = (overrides: Partial<SettlementRecord>): SettlementRecord => ({
  trade_date: "20270310100000",
  trade_type: "N",
  mid: "SBXTEST001",
  transaction_id: "T1",
  order_id: "sub_1-1-0",
  request_currency: "USD",
  request_amount: "19.90",
  transaction_type: "S",
  approval_currency: "USD",
  approval_amount: "19.90",
  billed_type: "R",
  billed_currency: "USD",
  billed_exchange_rate: "1",
  billed_exchange_rate_amount: "19.90",
  service_fee_amount: "-0.68",
  fee_amount: "0.00",
  service_fee_supply_amount: "-0.68",
  service_fee_vat_amount: "-0.07",
  fee_supply_amount: "0.00",
  fee_vat_amount: "0.00",
  request_sub_amount_total: "19.15",
  ...overrides,
});

const header: SettlementHeader = {
  request_date: "20270313",
  remittance_date: "20270312",
  version: "200",
  settle_date: "20270310",
  settle_currency: "USD",
  settle_amount: "19.22",
  vat_fee_amount: "-0.07",
  etc_vat_amount: "0.00",
  adjust_amount: "0.00",
  remittance_amount: "19.15",
  exchange_rate: "1",
  deposit_currency: "KRW",
  deposit_amount: "25000",
};

describe("createGatewaySettlements", () => {
  it("reads sales, refunds, partial refunds and chargebacks, fees as magnitudes whatever their sign", async () => {
    const records = [
      settled({}),
      settled({
        transaction_id: "T2",
        service_fee_amount: "0.68",
        service_fee_vat_amount: "0.07",
        fee_amount: "0.10",
        fee_vat_amount: "0.01",
      }),
      settled({ transaction_id: "R1", transaction_type: "R", request_amount: "-19.90" }),
      settled({ transaction_id: "P1", transaction_type: "P", request_amount: "-5.00" }),
      settled({ transaction_id: "C1", trade_type: "C", transaction_type: "R", request_amount: "-19.90" }),
    ];
    const settlements = createGatewaySettlements({
      settlements: async () => ({
        kind: "success",
        value: { remittances: [{ header, records, notices: ["partial"], total_count: "5" }] },
      }),
      expectedSettlements: async () => ({ kind: "unavailable", reason: "HTTP 503" }),
    });
    const answer = await settlements.settlements("20270312");
    expect(answer).toMatchObject({
      kind: "success",
      value: {
        notices: ["partial"],
        remittances: [
          {
            date: "20270312",
            currency: "USD",
            stated: {
              count: 5,
              net: "19.15",
              adjust: "0.00",
              deposit_currency: "KRW",
              deposit_amount: "25000",
            },
          },
        ],
      },
    });
    const movements = answer.kind === "success" ? answer.value.remittances[0]?.movements : [];
    expect(
      movements?.map((movement) => [movement.kind, movement.transaction_id, movement.fees, movement.vat]),
    ).toEqual([
      ["sale", "T1", "0.68", "0.07"],
      ["sale", "T2", "0.78", "0.08"],
      ["refund", "R1", "0.68", "0.07"],
      ["refund", "P1", "0.68", "0.07"],
      ["chargeback", "C1", "0.68", "0.07"],
    ]);
    expect(movements?.[0]).toEqual({
      kind: "sale",
      transaction_id: "T1",
      order_id: "sub_1-1-0",
      amount: "19.90",
      currency: "USD",
      gross: "19.90",
      net: "19.15",
      fees: "0.68",
      vat: "0.07",
      at: "20270310100000",
    });
    expect(await settlements.expectedSettlements("20270313")).toEqual({
      kind: "unavailable",
      reason: "HTTP 503",
    });
  });
});
