import { describe, expect, it } from "vitest";
import { documentNumber } from "../../../../functions/core/base/documents";
import type { OutboxEvent } from "../../../../functions/core/base/events";
import type { ChargeAttempt } from "../../../../functions/core/base/model";
import { auditMoney, type MoneyRecords } from "../../../../local/audit/money-audit";
import { attempt, refund, subscription } from "../../../support/billing-repository-contract";
import { creditNote, invoice } from "../../../support/document-store-contract";

const paid = (period: number, overrides = {}) =>
  attempt(
    { subscription_id: "sub-m", period, attempt: 0 },
    { status: "succeeded", lease_until: undefined, transaction_id: `TX-${period}`, ...overrides },
  );

/** A document's figures for a total of `amount`, no discount or tax. */
const figures = (amount: string) => ({
  lines: [{ description: "Pro", quantity: 1, unit_amount: amount, amount }],
  subtotal: amount,
  total: amount,
});

const invoiceOf = (line: ChargeAttempt, sequence: number) =>
  invoice("INV-2030", sequence, {
    subscription_id: "sub-m",
    order_id: line.order_id,
    ...figures(line.amount),
  });

/** A clean ledger: two renewals, one partly refunded, a proration that changed the plan; each with its document. */
function clean(): MoneyRecords {
  const attempts = [
    paid(1, { refunded_amount: "5.00", refunds: { "rf-1": "5.00" }, refund_revision: 1 }),
    paid(2),
    paid(5000, { amount: "3.00", purpose: "proration", transaction_id: "TX-P" }),
  ].map((line, index) => ({ ...line, invoice_number: documentNumber("INV-2030", index + 1) }));
  return {
    subscriptions: [subscription("sub-m", { period: 3 })],
    attempts,
    refunds: [
      refund("rf-1", {
        subscription_id: "sub-m",
        order_id: "sub-m-1-0",
        status: "succeeded",
        credit_note_number: "CN-2030-000001",
      }),
    ],
    gatewayRefunds: [{ refundId: "rf-1", orderId: "sub-m-1-0", amount: "5.00" }],
    events: planEvents("29.90"),
    invoices: attempts.map((line, index) => invoiceOf(line, index + 1)),
    creditNotes: [
      creditNote("CN-2030", 1, { subscription_id: "sub-m", refund_id: "rf-1", ...figures("5.00") }),
    ],
  };
}

/** The plan at sign-up (19.90), then one applied change to `amount`, as the bus received them (the change twice). */
function planEvents(amount: string): OutboxEvent[] {
  const created = { event_id: "e-1", type: "subscription.created", subscription_id: "sub-m", sequence: 1000 };
  const updated = {
    event_id: "e-2",
    type: "subscription.updated",
    subscription_id: "sub-m",
    changed: ["plan"],
    sequence: 3000,
    subscription: { plan: { amount, currency: "USD", interval_months: 1 } },
  };
  return [
    { ...created, plan: { amount: "19.90", currency: "USD", interval_months: 1 } },
    updated,
    updated,
  ] as unknown as OutboxEvent[];
}

describe("auditMoney", () => {
  it("finds nothing wrong with a ledger equal to the gateway", () => {
    expect(auditMoney(clean())).toMatchObject({
      refundMismatches: [],
      openRefunds: [],
      transactionsCreditedTwice: [],
      salesKeptAfterCancel: [],
      prorationMismatches: [],
      creditMismatches: [],
      documentMismatches: [],
      refunds: 1,
      prorations: 1,
      credits: 0,
      invoices: 3,
      creditNotes: 1,
      taxedDocuments: 0,
    });
  });

  it("finds a paid charge or refund without its document, one for another amount, one of nothing, and a gap", () => {
    const records = clean();
    const [first, second, third] = records.attempts;
    if (first === undefined || second === undefined || third === undefined) throw new Error("three lines");
    const audit = auditMoney({
      ...records,
      attempts: [first, { ...second, invoice_number: undefined }, third],
      refunds: [
        ...records.refunds,
        refund("rf-2", { subscription_id: "sub-m", order_id: "sub-m-2-0", status: "succeeded" }),
      ],
      // Number 2 is missing, number 3 was issued for 9.99, and one names a charge that was never paid.
      invoices: [invoiceOf(first, 1), { ...invoiceOf(third, 3), total: "9.99" }, invoiceOf(paid(7), 4)],
    });
    expect(audit.documentMismatches).toEqual([
      "sub-m-2-0: holds no number, listed none",
      "INV-2030-000003: total 9.99, sub-m-5000-0 moved 3.00",
      "INV-2030-000004: names sub-m-7-0, which moved no money",
      "rf-2: holds no number, listed none",
      "INV-2030: 3 numbers, first out of place 3",
      "INV-2030-000003: lines, subtotal 3.00, discount and taxes do not make 9.99",
    ]);
  });

  it("holds a document's figures to its total: the net, the discount and a tax added on top", () => {
    const records = clean();
    const [first, ...rest] = records.invoices;
    if (first === undefined) throw new Error("an invoice");
    const taxed = (amount: string) => ({
      ...first,
      total: "23.88",
      tax: [{ name: "VAT", percent: "20", amount, inclusive: false }],
    });
    const audit = (amount: string) =>
      auditMoney({
        ...records,
        attempts: records.attempts.map((line, index) => (index === 0 ? { ...line, amount: "23.88" } : line)),
        invoices: [taxed(amount), ...rest],
      }).documentMismatches;
    expect(audit("3.98")).toEqual([]);
    expect(audit("3.97")).toEqual([
      "INV-2030-000001: lines, subtotal 19.90, discount and taxes do not make 23.88",
    ]);
  });

  it("finds every kind of money the ledger and the gateway disagree on", () => {
    const records = clean();
    const audit = auditMoney({
      ...records,
      subscriptions: [
        subscription("sub-m", { period: 2, status: "canceled", pending_plan_order: "sub-m-5000-0" }),
      ],
      attempts: [...records.attempts, paid(3, { transaction_id: "TX-2" })],
      refunds: [...records.refunds, refund("rf-2", { subscription_id: "sub-m", order_id: "sub-m-2-0" })],
      gatewayRefunds: [...records.gatewayRefunds, { refundId: "rf-3", orderId: "sub-m-2-0", amount: "1.00" }],
      events: [],
    });
    expect(audit.refundMismatches).toEqual(["rf-3: refunded 1.00 at the gateway, absent here"]);
    expect(audit.openRefunds).toEqual(["rf-2: pending"]);
    expect(audit.transactionsCreditedTwice).toEqual(["TX-2: sub-m-2-0, sub-m-3-0"]);
    expect(audit.salesKeptAfterCancel).toEqual([
      "sub-m-2-0: kept, its subscription canceled before period 2",
      "sub-m-3-0: kept, its subscription canceled before period 3",
    ]);
    expect(audit.prorationMismatches).toEqual([
      "sub-m-5000-0: paid, its plan change still pending",
      "sub-m: 1 prorations kept (300 cents), 0 upgrades applied (0 cents a period)",
    ]);
  });

  it("holds the prorations kept to the upgrades applied: more money than their differences is a mismatch", () => {
    const records = clean();
    // 3.00 kept for a change of 19.90 → 21.90: more than the whole period's difference.
    expect(auditMoney({ ...records, events: planEvents("21.90") }).prorationMismatches).toEqual([
      "sub-m: 1 prorations kept (300 cents), 1 upgrades applied (200 cents a period)",
    ]);
    // A downgrade owes nothing: a proration kept for it is a mismatch too.
    expect(auditMoney({ ...records, events: planEvents("9.90") }).prorationMismatches).toEqual([
      "sub-m: 1 prorations kept (300 cents), 0 upgrades applied (0 cents a period)",
    ]);
  });

  it("holds the plan credits given to the decreases applied, and finds one never sent", () => {
    const records = clean();
    const credit = (amount: string, prorated_from = "10.00") =>
      refund("rf-c", {
        subscription_id: "sub-m",
        order_id: "sub-m-2-0",
        status: "succeeded",
        amount,
        prorated_from,
      });
    const withCredit = (amount: string, events: OutboxEvent[], prorated_from?: string) =>
      auditMoney({
        ...records,
        refunds: [...records.refunds, credit(amount, prorated_from)],
        gatewayRefunds: [...records.gatewayRefunds, { refundId: "rf-c", orderId: "sub-m-2-0", amount }],
        events,
      });
    // 19.90 → 9.90: 4.00 of a 10.00 difference given back.
    expect(withCredit("4.00", planEvents("9.90"))).toMatchObject({ creditMismatches: [], credits: 1 });
    // An upgrade credits nothing; more than the decrease's whole difference is a mismatch.
    expect(withCredit("4.00", planEvents("29.90")).creditMismatches).toEqual([
      "sub-m: 1 credits given (400 cents), 0 decreases applied (0 cents a period)",
    ]);
    expect(withCredit("12.00", planEvents("9.90"), "12.00").creditMismatches).toEqual([
      "sub-m: 1 credits given (1200 cents), 1 decreases applied (1000 cents a period)",
    ]);
    expect(withCredit("4.00", planEvents("9.90"), "3.00").creditMismatches).toEqual([
      "rf-c: gave back more than the difference of a whole period",
    ]);
    const pending = {
      refund_id: "rf-p",
      order_id: "sub-m-2-0",
      amount: "1.00",
      prorated_from: "2.00",
      lease_until: "2030-01-01T00:00:00.000Z",
    };
    expect(
      auditMoney({
        ...records,
        subscriptions: [subscription("sub-m", { period: 3, pending_credit: pending })],
      }).creditMismatches,
    ).toEqual(["sub-m: a plan credit never sent"]);
  });

  it("holds each line's refunded amount to its refunds", () => {
    const records = clean();
    const audit = auditMoney({ ...records, attempts: [paid(1, { refunded_amount: "7.00" })] });
    expect(audit.refundMismatches).toEqual([
      "sub-m-1-0: refunded 7.00 on the line, its refunds say otherwise",
    ]);
  });
});
