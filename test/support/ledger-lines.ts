import type { ChargeAttempt, RefundRecord } from "../../functions/core/base/model";

// Ledger lines for the reconciliation's unit tests: line n is subscription sub_n's period 1, paid 19.90 USD on 10
// March 2027 as transaction Tn, and its refund rf_n of 5.00 as transaction Rn an hour later.

export function ledgerCharge(n: number, overrides: Partial<ChargeAttempt> = {}): ChargeAttempt {
  return {
    subscription_id: `sub_${n}`,
    period: 1,
    attempt: 0,
    order_id: `sub_${n}-1-0`,
    amount: "19.90",
    currency: "USD",
    status: "succeeded",
    transaction_id: `T${n}`,
    created_at: "2027-03-10T10:00:00.000Z",
    updated_at: "2027-03-10T10:00:00.000Z",
    ...overrides,
  };
}

export function ledgerRefund(n: number, overrides: Partial<RefundRecord> = {}): RefundRecord {
  return {
    refund_id: `rf_${n}`,
    subscription_id: `sub_${n}`,
    order_id: `sub_${n}-1-0`,
    period: 1,
    attempt: 0,
    amount: "5.00",
    currency: "USD",
    reason: "goodwill",
    status: "succeeded",
    refund_transaction_id: `R${n}`,
    created_at: "2027-03-10T11:00:00.000Z",
    updated_at: "2027-03-10T11:00:00.000Z",
    ...overrides,
  };
}
