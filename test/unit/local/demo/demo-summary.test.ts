import { describe, expect, it } from "vitest";
import type { ChargeView } from "../../../../functions/api/merchant-api-views";
import type { ChargeAttempt } from "../../../../functions/core/base/model";
import type { SubscriptionView } from "../../../../functions/core/base/subscription-view";
import { compareLedgerRecords, type GatewayPayment } from "../../../../local/audit/ledger-comparison";
import { journeyCounts, planCustomers } from "../../../../local/demo/customer-mix";
import {
  type DemoObservations,
  exitCodeOf,
  formatInvariants,
  formatSummary,
  summarize,
  violationsOf,
} from "../../../../local/demo/demo-summary";
import { FaultInjector } from "../../../../sandbox/faults/faults";

const NOW = new Date("2027-03-18T09:00:00.000Z");
const AT = "2027-01-15T09:00:00.000Z";

function subscription(id: string, overrides: Partial<SubscriptionView> = {}): SubscriptionView {
  return {
    subscription_id: id,
    status: "active",
    billing: "token",
    external_id: null,
    metadata: {},
    plan: { amount: "19.90", currency: "USD", interval_months: 1, quantity: 1 },
    current_period: { index: 2, start: "2027-03-15T09:00:00.000Z", end: "2027-04-15T09:00:00.000Z" },
    next_charge_at: "2027-04-15T09:00:00.000Z",
    card: { first4: "4111", last4: "1111" },
    cancel_at: null,
    discount: null,
    trial_end: null,
    resume_at: null,
    scheduled_plan: null,
    created_at: AT,
    ...overrides,
  };
}

function charge(
  id: string,
  period: number,
  attempt: number,
  overrides: Partial<ChargeView> = {},
): ChargeView {
  const order = `${id}-${period}-${attempt}`;
  return {
    charge_id: order,
    kind: period >= 5000 ? "ad_hoc" : "scheduled",
    period,
    attempt,
    order_id: order,
    amount: "19.90",
    amount_before_discount: "19.90",
    discount: "0.00",
    currency: "USD",
    status: "succeeded",
    transaction_id: `T-${order}`,
    refunded_amount: "0.00",
    created_at: AT,
    ...overrides,
  };
}

function attempt(id: string, period: number, overrides: Partial<ChargeAttempt> = {}): ChargeAttempt {
  const order_id = `${id}-${period}-0`;
  return {
    subscription_id: id,
    period,
    attempt: 0,
    order_id,
    amount: "19.90",
    currency: "USD",
    status: "succeeded",
    transaction_id: `T-${order_id}`,
    created_at: AT,
    updated_at: AT,
    ...overrides,
  };
}

function sale(orderId: string, overrides: Partial<GatewayPayment> = {}): GatewayPayment {
  return {
    orderId,
    transactionId: `T-${orderId}`,
    status: "SALE",
    amount: "19.90",
    balance: "19.90",
    ...overrides,
  };
}

/** A subscription billed on the gateway's recurring plan SBXRC001, its n-th charge and our line for it. */
const PLAN_SUBSCRIPTION = { subscription_id: "sub_g", period: 2, recurring_id: "SBXRC001" };
const planSale = (n: number, overrides: Partial<GatewayPayment> = {}) =>
  sale(`SBXRC001-${n}`, { recurringId: "SBXRC001", ...overrides });
const planLine = (n: number, period: number, attemptNumber = 0) =>
  attempt("sub_g", period, {
    attempt: attemptNumber,
    order_id: `SBXRC001-${n}`,
    transaction_id: `T-SBXRC001-${n}`,
  });

const NO_FAULTS = new FaultInjector(0).counters().total;

/** A month that is fully accounted for: one renewing, one recovered, one in dunning, one canceled, one pending. */
function healthyMonth(): DemoObservations {
  const ledgers = compareLedgerRecords({
    subscriptions: [
      { subscription_id: "sub_a", period: 3 },
      { subscription_id: "sub_r", period: 3 },
    ],
    attempts: [attempt("sub_a", 0, { refunded_amount: "5.00" }), attempt("sub_a", 1)],
    payments: [sale("sub_a-0-0", { balance: "14.90" }), sale("sub_a-1-0")],
  });
  return {
    now: NOW,
    customers: 6,
    subscriptions: [
      subscription("sub_a", { plan: { amount: "19.90", currency: "USD", interval_months: 12, quantity: 1 } }),
      subscription("sub_r", { plan: { amount: "9.90", currency: "EUR", interval_months: 1, quantity: 3 } }),
      subscription("sub_d", {
        status: "past_due",
        dunning: { step: 1, reason: "declined", since: AT },
      }),
      subscription("sub_e", { status: "past_due", status_reason: "token_expired" }),
      subscription("sub_c", { status: "canceled", status_reason: "dunning_exhausted" }),
      subscription("sub_p", { status: "pending", current_period: null }),
    ],
    charges: new Map([
      [
        "sub_a",
        [
          charge("sub_a", 0, 0, { refunded_amount: "5.00" }),
          charge("sub_a", 1, 0, { amount: "19.90", amount_before_discount: "23.42", discount: "3.52" }),
        ],
      ],
      [
        "sub_r",
        [
          charge("sub_r", 0, 0, { currency: "EUR", amount: "9.90" }),
          charge("sub_r", 1, 0, { status: "declined" }),
          charge("sub_r", 1, 1),
        ],
      ],
      ["sub_d", [charge("sub_d", 1, 0, { status: "declined" })]],
      ["sub_e", []],
      ["sub_c", []],
      ["sub_p", [charge("sub_p", 0, 0, { status: "voided" })]],
    ]),
    signupDeclines: 2,
    abandonedWindows: new Set(["sub_p"]),
    retries: 3,
    faults: { ...NO_FAULTS, error: 4, internalError: 3, timeoutAfterCommit: 1, duplicateStatusUrl: 2 },
    ledgers,
    deadLetters: 0,
    realForms: {
      callbacks: { real: 5, short: 2, seed: 1 },
      formsAcknowledged: 7,
      tokenPayments: 12,
      tokenDeletions: 2,
      voidedByRetrieve: 1,
      internalErrors: 3,
      chargebackStatusChanges: 1,
    },
    lifecycle: [
      { subscription_id: "sub_r", change: "card updated", expect: { status: "active" } },
      { subscription_id: "sub_a", change: "upgraded with proration", expect: { status: "active" } },
      // Its payment was still being settled when asked: either end is explained.
      { subscription_id: "sub_d", change: "card updated" },
    ],
  };
}

describe("demo summary", () => {
  it("counts charges, declines, recoveries, states, refunds and revenue per currency", () => {
    const summary = summarize(healthyMonth(), 61_500);
    expect(summary).toMatchObject({
      charged: 4,
      declined: 2,
      signupDeclines: 2,
      recovered: 1,
      active: 2,
      pastDue: 2,
      canceled: 1,
      pending: 1,
      refunds: 1,
      retries: 3,
    });
    expect([...summary.reasons.pastDue]).toEqual([
      ["declined", 1],
      ["token_expired", 1],
    ]);
    expect([...summary.refunded]).toEqual([["USD", "5.00"]]);
    // USD: 19.90 − 5.00 + 19.90 + 19.90; EUR: 9.90.
    expect([...summary.revenue]).toEqual([
      ["EUR", "9.90"],
      ["USD", "54.70"],
    ]);
    const table = formatSummary(summary).join("\n");
    expect(table).toMatch(/recovered by retry +\| 1 /);
    expect(table).toMatch(/past_due +\| 2 \(1 declined, 1 token_expired\)/);
    expect(table).toMatch(/canceled +\| 1 \(1 dunning_exhausted\)/);
    expect(table).toMatch(/revenue +\| EUR 9\.90 · USD 54\.70/);
    expect(table).toMatch(/faults injected +\| 10: 4 5xx, 3 EM00\/EX1000, 1 timeouts after commit/);
    expect(table).toMatch(
      /status_url callbacks +\| 5 real \(no status\), 2 short names, 1 seed's form; 7 posted as forms and acknowledged/,
    );
    expect(table).toMatch(
      /real gateway answers +\| 12 token payments, 2 token deletions, 1 attempts voided by Q004, 3 EM00\/EX1000, 1 chargeback status changes/,
    );
    expect(table).toMatch(/wall time +\| 61\.5 s/);
    expect(table).toMatch(/lifecycle +\| 2 card updated, 1 upgraded with proration /);
    expect(summary.pricing).toEqual({ annual: 1, seats: 1, coupons: 1 });
    expect(table).toMatch(/pricing +\| 1 annual, 1 with seats, 1 charged less a coupon /);
    expect(table).toMatch(/invoices +\| 0, none on two charges /);
  });

  it("passes a month that is accounted for", () => {
    const month = healthyMonth();
    const violations = violationsOf(month);
    expect(violations).toEqual([]);
    expect(exitCodeOf(violations)).toBe(0);
    expect(formatInvariants(month, violations)).toEqual([
      "reconciliation: 2 succeeded charges here, 2 sales at the gateway; 0 mismatches, 0 double charges",
      "invariants: OK",
    ]);
  });

  it("fails on a period sold twice and on a sale the ledger does not know", () => {
    const ledgers = compareLedgerRecords({
      subscriptions: [{ subscription_id: "sub_a", period: 2 }],
      attempts: [
        attempt("sub_a", 0),
        attempt("sub_a", 1, { attempt: 1, order_id: "sub_a-1-1", transaction_id: "T-sub_a-1-1" }),
      ],
      // Period 1 sold on attempt 0 (our line lost) and again on attempt 1.
      payments: [sale("sub_a-0-0"), sale("sub_a-1-0"), sale("sub_a-1-1")],
    });
    const month = { ...healthyMonth(), ledgers };
    const violations = violationsOf(month);
    expect(violations).toEqual([
      "ledger mismatch: sub_a-1-0: sold at the gateway, absent here",
      "double charge: sub_a/1",
    ]);
    expect(exitCodeOf(violations)).toBe(1);
    expect(formatInvariants(month, violations)).toContain("invariants: 2 violated");
  });

  it("fails on a lifecycle change whose subscription did not end where it leads", () => {
    const month = healthyMonth();
    const violations = violationsOf({
      ...month,
      lifecycle: [
        ...month.lifecycle,
        {
          subscription_id: "sub_a",
          change: "canceled at period end",
          expect: { status: "canceled", status_reason: "canceled_at_period_end" },
        },
      ],
    });
    expect(violations).toEqual([
      "sub_a: canceled at period end, should end canceled (canceled_at_period_end), is active",
    ]);
  });

  it("fails on an invoice number on two charges", () => {
    const paid = (subscription: string, number: string) =>
      charge(subscription, 1, 0, { status: "succeeded", invoice_number: number });
    const violations = violationsOf({
      ...healthyMonth(),
      charges: new Map([
        ["sub_a", [paid("sub_a", "INV-2027-000001"), paid("sub_a", "INV-2027-000003")]],
        ["sub_b", [paid("sub_b", "CN-2027-000001"), paid("sub_b", "CN-2027-000001")]],
      ]),
    });
    expect(violations).toEqual(["invoice CN-2027-000001 on 2 charges: sub_b-1-0, sub_b-1-0"]);
  });

  it("fails on subscriptions in states nothing explains, open charges and dead letters", () => {
    const month = healthyMonth();
    const violations = violationsOf({
      ...month,
      subscriptions: [
        // Active but its last paid period ended: a renewal was lost.
        subscription("sub_a", {
          current_period: { index: 1, start: "2027-02-15T09:00:00.000Z", end: "2027-03-15T09:00:00.000Z" },
        }),
        subscription("sub_d", { status: "past_due" }),
        subscription("sub_w", { status: "pending", current_period: null }),
      ],
      charges: new Map([["sub_a", [charge("sub_a", 2, 0, { status: "unknown" })]]]),
      deadLetters: 2,
      lifecycle: [],
    });
    expect(violations).toEqual([
      "sub_a: active but not paid through 2027-03-18T09:00:00.000Z",
      "sub_d: past_due without a dunning step or a reason",
      "sub_w: pending though its sign-up was completed",
      "sub_a-2-0: still unknown at the end",
      "2 messages in the dead-letter queues",
    ]);
    expect(exitCodeOf(violations)).toBe(1);
  });
});

describe("ledger comparison", () => {
  it("matches refunds, ad hoc charges and charges of a gateway-managed plan", () => {
    const comparison = compareLedgerRecords({
      subscriptions: [{ subscription_id: "sub_t", period: 2 }, PLAN_SUBSCRIPTION],
      attempts: [
        attempt("sub_t", 0, { refunded_amount: "19.90" }),
        attempt("sub_t", 1),
        attempt("sub_t", 5000, { amount: "5.00" }),
        attempt("sub_g", 0),
        planLine(1, 1),
      ],
      payments: [
        sale("sub_t-0-0", { balance: "0" }),
        sale("sub_t-1-0"),
        sale("sub_t-5000-0", { amount: "5.00", balance: "5.00" }),
        sale("sub_g-0-0"),
        planSale(1),
        // Declined at the gateway, and someone else's sale: neither counts.
        sale("sub_t-1-1", { status: "NONE", balance: "0" }),
        sale("sub_x-0-0"),
      ],
    });
    expect(comparison.mismatches).toEqual([]);
    expect(comparison.doubleCharges).toEqual([]);
    expect(comparison.ours).toEqual({ attempts: 5, succeeded: 5 });
    expect(comparison.sandbox.sales).toBe(5);
    expect(comparison.subscriptionsNotAtPeriod(2)).toEqual([]);
  });

  it("reports a refund, a chargeback-aware balance and a recurring sale that disagree", () => {
    const comparison = compareLedgerRecords({
      subscriptions: [{ subscription_id: "sub_t", period: 2 }, PLAN_SUBSCRIPTION],
      attempts: [
        attempt("sub_t", 0, { refunded_amount: "1.00" }),
        // Charged back: the balance is gone but nothing was refunded.
        attempt("sub_t", 1),
        planLine(1, 1),
        attempt("sub_g", 0),
      ],
      payments: [
        sale("sub_t-0-0", { balance: "19.90" }),
        sale("sub_t-1-0", {
          balance: "0",
          chargeback: {
            chargebackId: "C1",
            transactionId: "T-sub_t-1-0",
            mid: "M",
            orderId: "sub_t-1-0",
            currency: "USD",
            amount: "19.90",
            reason: "fraud",
            status: "DEDUCTION",
            chargebackDate: "20270301000000",
            deadline: "20270322",
            deductedDate: "20270322000000",
          },
        }),
        planSale(1),
        // The gateway charged the plan's period 1 twice.
        planSale(2, { transactionId: "T-other" }),
      ],
    });
    expect(comparison.mismatches).toEqual([
      "sub_t-0-0: refunded 0.00 at the gateway, 1.00 here",
      "SBXRC001-2: sold at the gateway, absent here",
      "sub_g-0-0: succeeded here, no sale at the gateway",
    ]);
    expect(comparison.doubleCharges).toEqual([]);
  });

  it("counts a period sold twice through the same recurring plan", () => {
    const comparison = compareLedgerRecords({
      subscriptions: [PLAN_SUBSCRIPTION],
      attempts: [planLine(1, 1), planLine(2, 1, 1)],
      payments: [planSale(1), planSale(2)],
    });
    expect(comparison.doubleCharges).toEqual(["sub_g/1"]);
  });

  it("names canceled subscriptions whose token is still active at the gateway", () => {
    const canceled = (id: string, token_id?: string) => ({
      subscription_id: id,
      period: 1,
      status: "canceled" as const,
      token_id,
    });
    const comparison = compareLedgerRecords({
      subscriptions: [
        canceled("sub_live", "tok_live"),
        canceled("sub_deleted", "tok_deleted"),
        canceled("sub_tokenless"),
        { subscription_id: "sub_active", period: 1, status: "active", token_id: "tok_active" },
      ],
      attempts: [],
      payments: [],
      tokenStatuses: new Map([
        ["tok_live", "active"],
        ["tok_deleted", "deleted"],
        ["tok_active", "active"],
      ]),
    });
    expect(comparison.liveTokens).toEqual(["sub_live: canceled, token tok_live still active"]);
  });
});

describe("demo customer mix", () => {
  it("follows the issue's mix at 200 customers and keeps one of each journey at the smallest size", () => {
    expect(journeyCounts(200)).toEqual({
      renews: 92,
      "declines-on-rebill": 12,
      "signup-declined": 9,
      "token-expires": 6,
      "card-blocked": 6,
      window: 31,
      "window-declined": 2,
      "window-abandoned": 2,
      "gateway-recurring": 15,
      "card-update": 5,
      "cancel-at-period-end": 5,
      "pause-resume": 5,
      upgrade: 5,
      trial: 5,
    });
    for (const size of [17, 20, 57]) {
      const counts = Object.values(journeyCounts(size));
      expect(counts.every((count) => count >= 1)).toBe(true);
      expect(counts.reduce((sum, count) => sum + count, 0)).toBe(size);
    }
    expect(() => journeyCounts(16)).toThrow(RangeError);
  });

  it("is the same for the same seed and differs for another", () => {
    const journeys = (seed: number) => planCustomers(40, seed).map((customer) => customer.journey);
    expect(planCustomers(40, 7)).toEqual(planCustomers(40, 7));
    expect(journeys(7)).not.toEqual(journeys(8));
  });
});
