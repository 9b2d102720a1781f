import { describe, expect, it } from "vitest";
import { createGatewayTransactions } from "../../../functions/adapters/gateway-reconciliation";
import type { TransactionRecord } from "../../../functions/gateway/schemas/reconciliation";

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
