import { describe, expect, it } from "vitest";
import type { ChargeAttempt, RefundRecord } from "../../../../functions/core/base/model";
import type { LedgerEntry } from "../../../../functions/core/refunds/reconciliation";
import {
  forecastSettlements,
  type Remittance,
  reconcileSettlements,
  type SettledMovement,
  type SettlementDeps,
} from "../../../../functions/core/refunds/settlements";
import { gatewayCalendar } from "../../../../functions/gateway/calendar";
import { ledgerCharge as charge, ledgerRefund as refund } from "../../../support/ledger-lines";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";

// The payouts' reconciliation on fakes of its ports: a remittance's movements matched to the ledger, fees read from
// gross and net, the stated total checked, a movement paid out twice, and a line no remittance carried.

const DATE = "20270312";
const NOW = new Date("2027-03-13T03:30:00.000Z");

function sale(n: number, overrides: Partial<SettledMovement> = {}): SettledMovement {
  return {
    kind: "sale",
    transaction_id: `T${n}`,
    order_id: `sub_${n}-1-0`,
    amount: "19.90",
    currency: "USD",
    gross: "19.90",
    fees: "0.68",
    vat: "0.07",
    net: "19.15",
    at: "20270310100000",
    ...overrides,
  };
}

function remittance(movements: SettledMovement[], stated: Partial<Remittance["stated"]> = {}): Remittance {
  const net = movements.reduce((sum, movement) => sum + Math.round(Number(movement.net) * 100), 0) / 100;
  return {
    date: DATE,
    currency: "USD",
    movements,
    stated: {
      count: movements.length,
      net: net.toFixed(2),
      adjust: "0.00",
      deposit_currency: "USD",
      deposit_amount: net.toFixed(2),
      ...stated,
    },
  };
}

interface World {
  readonly remittances: Remittance[];
  readonly charges?: ChargeAttempt[];
  readonly refunds?: RefundRecord[];
  readonly ledger?: LedgerEntry[];
  readonly store?: MemoryBillingRepository;
}

function depsOf(world: World): SettlementDeps & { store: MemoryBillingRepository } {
  const store = world.store ?? new MemoryBillingRepository();
  // Each list is of the date asked, as the gateway's adapter dates it.
  const success = (date: string, remittances: Remittance[]) =>
    Promise.resolve({
      kind: "success" as const,
      value: { remittances: remittances.map((each) => ({ ...each, date })), notices: [] },
    });
  return {
    store,
    calendar: gatewayCalendar,
    settlements: (date) => success(date, world.remittances),
    expectedSettlements: (date) => success(date, world.remittances),
    ledger: {
      async *listLedger(from, to) {
        yield (world.ledger ?? []).filter(
          (entry) => Date.parse(entry.at) >= from.getTime() && Date.parse(entry.at) <= to.getTime(),
        );
      },
    },
    repository: {
      getAttempt: async (key) =>
        (world.charges ?? []).find(
          (item) => item.subscription_id === key.subscription_id && item.period === key.period,
        ),
      getRefund: async (id) => (world.refunds ?? []).find((item) => item.refund_id === id),
      listRefunds: async (id) => (world.refunds ?? []).filter((item) => item.subscription_id === id),
    },
    settlementStore: store,
    clock: { now: () => NOW },
  };
}

async function reportOf(world: World, date = DATE) {
  const outcome = await reconcileSettlements(date, depsOf(world));
  if (outcome.kind !== "reconciled") throw new Error(outcome.reason);
  return outcome.report;
}

describe("reconcileSettlements", () => {
  it("matches sales, refunds and chargebacks, and sums the payout", async () => {
    const report = await reportOf({
      remittances: [
        remittance([
          sale(1),
          sale(2, {
            kind: "refund",
            transaction_id: "R2",
            amount: "-5.00",
            gross: "-5.00",
            fees: "0",
            vat: "0",
            net: "-5.00",
          }),
          sale(3, {
            kind: "chargeback",
            transaction_id: "C3",
            amount: "-19.90",
            gross: "-19.90",
            fees: "0",
            vat: "0",
            net: "-19.90",
          }),
        ]),
      ],
      charges: [charge(1), charge(2), charge(3, { disputed: true })],
      refunds: [refund(2)],
    });
    expect(report.mismatches).toEqual([]);
    expect(report.payouts).toEqual([
      {
        remittance_date: DATE,
        currency: "USD",
        status: "settled",
        movements: 3,
        gross: "-5.00",
        fees: "0.68",
        vat: "0.07",
        adjust: "0.00",
        net: "-5.75",
        deposit_currency: "USD",
        deposit_amount: "-5.75",
      },
    ]);
  });

  it("reads a reversal's fees given back as negative fees, and keeps each movement's settlement once", async () => {
    const given = sale(1, {
      kind: "refund",
      transaction_id: "R1",
      amount: "-19.90",
      gross: "-19.90",
      net: "-19.15",
    });
    const world = {
      remittances: [remittance([given])],
      charges: [charge(1)],
      refunds: [refund(1, { amount: "19.90" })],
    };
    const deps = depsOf(world);
    const outcome = await reconcileSettlements(DATE, deps);
    expect(outcome).toMatchObject({
      report: { mismatches: [], payouts: [{ fees: "-0.68", vat: "-0.07", net: "-19.15" }] },
    });
    expect(
      await deps.store.settledTransactions([{ subscription_id: "sub_1", transaction_id: "R1" }]),
    ).toEqual(new Set(["R1"]));
    // The same list again matches; the movement listed again on another date was paid out twice.
    expect((await reconcileSettlements(DATE, deps)).kind).toBe("reconciled");
    const again = await reportOf({ ...world, store: deps.store }, "20270312");
    expect(again.mismatches).toEqual([]);
    const later = await reconcileSettlements("20270314", {
      ...depsOf({ ...world, store: deps.store }),
      clock: { now: () => new Date("2027-03-15T03:30:00.000Z") },
    });
    expect(later).toMatchObject({
      report: {
        mismatches: [
          { kind: "settled_twice", line: "refund", remittance_date: "20270314", transaction_id: "R1" },
        ],
      },
    });
  });

  it("finds a gateway-run charge and its refund, whose order_id is the gateway's, by transaction among the days' lines", async () => {
    const gatewayRun = charge(9, { order_id: "RC0001-1" });
    const itsRefund = refund(9, { order_id: "RC0001-1" });
    const report = await reportOf({
      remittances: [
        remittance([
          sale(9, { order_id: "RC0001-1" }),
          sale(9, {
            kind: "refund",
            order_id: "RC0001-1",
            transaction_id: "R9",
            amount: "-5.00",
            gross: "-5.00",
            fees: "0",
            vat: "0",
            net: "-5.00",
          }),
        ]),
      ],
      ledger: [
        { kind: "charge", at: gatewayRun.updated_at, attempt: gatewayRun },
        { kind: "refund", at: itsRefund.updated_at, refund: itsRefund },
      ],
      charges: [gatewayRun],
      refunds: [itsRefund],
    });
    expect(report.mismatches).toEqual([]);
  });

  it("reports what it cannot match: unknown movements, lines in another state or amount, fees that do not add up", async () => {
    const report = await reportOf({
      remittances: [
        remittance([
          sale(1, { order_id: "walk-in-1" }),
          sale(2, { amount: "19.00" }),
          sale(3),
          sale(4, { net: "19.20" }),
          sale(5, {
            kind: "chargeback",
            transaction_id: "C5",
            amount: "-19.90",
            gross: "-19.90",
            fees: "0",
            vat: "0",
            net: "-19.90",
          }),
          sale(6, {
            kind: "refund",
            transaction_id: "R6",
            amount: "-5.00",
            gross: "-5.00",
            fees: "0",
            vat: "0",
            net: "-5.00",
          }),
        ]),
      ],
      charges: [charge(2), charge(3, { status: "unknown" }), charge(4), charge(5)],
    });
    expect(report.mismatches.map((mismatch) => [mismatch.kind, mismatch.line, mismatch.order_id])).toEqual([
      ["missing_here", "charge", "walk-in-1"],
      ["amount_differs", "charge", "sub_2-1-0"],
      ["status_differs", "charge", "sub_3-1-0"],
      ["fees_differ", "charge", "sub_4-1-0"],
      ["status_differs", "chargeback", "sub_5-1-0"],
      ["missing_here", "refund", "sub_6-1-0"],
    ]);
  });

  it("checks the stated payout against its movements and the adjustment, and the count", async () => {
    const adjusted = await reportOf({
      remittances: [remittance([sale(1)], { net: "18.15", adjust: "-1.00" })],
      charges: [charge(1)],
    });
    expect(adjusted.mismatches).toEqual([]);
    const short = await reportOf({
      remittances: [remittance([sale(1)], { count: 2, net: "38.30" })],
      charges: [charge(1)],
    });
    expect(short.mismatches).toEqual([
      {
        kind: "total_differs",
        line: "remittance",
        remittance_date: DATE,
        currency: "USD",
        gateway_amount: "38.30",
        ledger_amount: "19.15",
        at: DATE,
      },
    ]);
  });

  it("reports a ledger line no remittance paid out by the delay and its grace, not before", async () => {
    // Succeeded on 7 March (Korea): due on the 9th, reported from the 12th's run on.
    const line = charge(7, { updated_at: "2027-03-07T01:00:00.000Z" });
    const ledger: LedgerEntry[] = [
      { kind: "charge", at: line.updated_at, attempt: line },
      {
        kind: "charge",
        at: line.updated_at,
        attempt: charge(8, {
          amount: "0.00",
          transaction_id: undefined,
          discount: "19.90",
          amount_before_discount: "19.90",
        }),
      },
    ];
    expect((await reportOf({ remittances: [], ledger }, "20270311")).mismatches).toEqual([]);
    expect((await reportOf({ remittances: [], ledger })).mismatches).toEqual([
      {
        kind: "unsettled",
        line: "charge",
        currency: "USD",
        order_id: "sub_7-1-0",
        transaction_id: "T7",
        ledger_amount: "19.90",
        ledger_status: "succeeded",
        at: line.updated_at,
      },
    ]);
  });

  it("asks nothing for a date the gateway reports only from the next day", async () => {
    const deps = { ...depsOf({ remittances: [] }), settlements: () => Promise.reject(new Error("asked")) };
    expect(await reconcileSettlements("20270313", deps)).toEqual({
      kind: "reconciled",
      report: {
        payouts: [],
        mismatches: [],
        notices: ["settlements of 20270313 are reported from the next day"],
      },
    });
  });
});

describe("forecastSettlements", () => {
  it("keeps the expected payouts until the settlement replaces them", async () => {
    const deps = depsOf({ remittances: [remittance([sale(1)])], charges: [charge(1)] });
    await forecastSettlements("20270313", deps);
    await reconcileSettlements(DATE, deps);
    await forecastSettlements(DATE, deps);
    expect(
      (await deps.store.listPayoutDays("20270301", "20270331")).map((day) => [
        day.remittance_date,
        day.status,
      ]),
    ).toEqual([
      [DATE, "settled"],
      ["20270313", "expected"],
    ]);
  });
});
