import { describe, expect, it } from "vitest";
import type { ChargeAttempt, RefundRecord } from "../../../../functions/core/base/model";
import type { GatewayOutcome } from "../../../../functions/core/base/outcome";
import {
  type GatewayRecord,
  type GatewayRecords,
  type LedgerEntry,
  previousDay,
  type ReconciliationDeps,
  reconcile,
} from "../../../../functions/core/refunds/reconciliation";
import { gatewayCalendar } from "../../../../functions/gateway/calendar";
import { ledgerCharge as charge, ledgerRefund as refund } from "../../../support/ledger-lines";
import { partialPort } from "../../../support/partial-port";

const DAY = { from: "20270310", to: "20270310" };

/** A gateway record; `at` is written as the gateway writes it (YYYYMMDDHHMMSS in its calendar), `day` follows. */
type RecordFacts = Omit<GatewayRecord, "day">;

function record(overrides: Partial<RecordFacts>): GatewayRecord {
  const facts: RecordFacts = {
    transaction_id: "T1",
    order_id: "sub_1-1-0",
    amount: "19.90",
    at: "20270310100000",
    ...overrides,
  };
  return { ...facts, day: facts.at.slice(0, 8) };
}

const sale = (n: number, overrides: Partial<RecordFacts> = {}) =>
  record({ transaction_id: `T${n}`, order_id: `sub_${n}-1-0`, ...overrides });
const reversal = (n: number, overrides: Partial<RecordFacts> = {}) =>
  record({
    transaction_id: `R${n}`,
    reverses: `T${n}`,
    order_id: `sub_${n}-1-0`,
    amount: "-5.00",
    at: "20270310110000",
    ...overrides,
  });

interface World {
  readonly gateway: GatewayRecord[];
  /** The ledger index: what succeeded here, and when. */
  readonly ledger: LedgerEntry[];
  /** Everything stored, for point look-ups. */
  readonly charges?: ChargeAttempt[];
  readonly refunds?: RefundRecord[];
  readonly unavailable?: boolean;
}

const listedCharge = (attempt: ChargeAttempt, at = attempt.updated_at): LedgerEntry => ({
  kind: "charge",
  at,
  attempt,
});
const listedRefund = (item: RefundRecord, at = item.updated_at): LedgerEntry => ({
  kind: "refund",
  at,
  refund: item,
});

function depsOf(world: World) {
  const asked: { from: string; to: string }[] = [];
  const deps: ReconciliationDeps = {
    calendar: gatewayCalendar,
    async transactions(from, to): Promise<GatewayOutcome<GatewayRecords>> {
      asked.push({ from, to });
      if (world.unavailable) return { kind: "unavailable", reason: "HTTP 503" };
      const records = world.gateway.filter((item) => item.day >= from && item.day <= to);
      return { kind: "success", value: { records, notices: [] } };
    },
    ledger: {
      async *listLedger(from, to) {
        yield world.ledger.filter(
          (entry) => Date.parse(entry.at) >= from.getTime() && Date.parse(entry.at) <= to.getTime(),
        );
      },
    },
    repository: partialPort<ReconciliationDeps["repository"]>({
      getAttempt: async (key) =>
        (world.charges ?? []).find(
          (item) =>
            item.subscription_id === key.subscription_id &&
            item.period === key.period &&
            item.attempt === key.attempt,
        ),
      listRefunds: async (id) => (world.refunds ?? []).filter((item) => item.subscription_id === id),
      // Only a chargeback deduction writes (the integration tests record one): none of these worlds has one.
      getSubscription: async () => undefined,
      updateAttempt: async () => false,
    }),
    clock: { now: () => new Date("2027-03-02T00:00:00.000Z") },
  };
  return { deps, asked };
}

async function mismatchesOf(world: World) {
  const outcome = await reconcile(DAY, depsOf(world).deps);
  if (outcome.kind !== "reconciled") throw new Error(outcome.reason);
  return outcome.report.mismatches;
}

describe("reconcile", () => {
  it("matches sales and refunds, asking the gateway from 7 days before the period to 1 day after", async () => {
    const { deps, asked } = depsOf({
      gateway: [sale(1), sale(2), reversal(1)],
      ledger: [listedCharge(charge(1)), listedCharge(charge(2)), listedRefund(refund(1))],
    });
    const outcome = await reconcile(DAY, deps);
    expect(outcome).toEqual({
      kind: "reconciled",
      report: {
        ...DAY,
        gateway_records: 3,
        ledger_lines: 3,
        matched: 3,
        mismatches: [],
        chargebacks_recorded: [],
        notices: [],
      },
    });
    expect(asked).toEqual([{ from: "20270303", to: "20270311" }]);
  });

  it("finds at the gateway a line that succeeded here days after its transaction (settled by retrieve)", async () => {
    const late = charge(1, { updated_at: "2027-03-10T10:00:00.000Z" });
    const mismatches = await mismatchesOf({
      gateway: [sale(1, { at: "20270305100000" })],
      ledger: [listedCharge(late)],
    });
    expect(mismatches).toEqual([]);
  });

  it("finds each kind of difference", async () => {
    const mismatches = await mismatchesOf({
      gateway: [sale(1, { amount: "9.90" }), sale(2), sale(3), reversal(4, { amount: "-6.00" })],
      ledger: [listedCharge(charge(1)), listedCharge(charge(5)), listedRefund(refund(4))],
      charges: [charge(2, { status: "declined", transaction_id: undefined })],
    });
    expect(mismatches).toEqual([
      expect.objectContaining({
        kind: "amount_differs",
        line: "charge",
        order_id: "sub_1-1-0",
        gateway_amount: "9.90",
        ledger_amount: "19.90",
      }),
      expect.objectContaining({
        kind: "status_differs",
        line: "charge",
        order_id: "sub_2-1-0",
        ledger_status: "declined",
      }),
      expect.objectContaining({
        kind: "missing_here",
        line: "charge",
        order_id: "sub_3-1-0",
        transaction_id: "T3",
      }),
      expect.objectContaining({
        kind: "amount_differs",
        line: "refund",
        refund_id: "rf_4",
        gateway_amount: "-6.00",
      }),
      expect.objectContaining({
        kind: "missing_at_gateway",
        line: "charge",
        order_id: "sub_5-1-0",
        transaction_id: "T5",
      }),
    ]);
  });

  it("matches across midnight and finds lines that succeeded here on another day by their order_id", async () => {
    const late = charge(1, { updated_at: "2027-03-11T00:00:02.000Z" });
    const closedDaysLater = charge(2, { updated_at: "2027-03-14T09:00:00.000Z" });
    const mismatches = await mismatchesOf({
      gateway: [sale(1, { at: "20270310235959" }), sale(2), sale(3, { at: "20270309235959" })],
      ledger: [listedCharge(late), listedCharge(charge(3, { updated_at: "2027-03-10T00:00:01.000Z" }))],
      charges: [closedDaysLater],
    });
    expect(mismatches).toEqual([]);
  });

  it("a chargeback matches a charge marked disputed, and is missing here otherwise", async () => {
    const chargeback = reversal(1, { transaction_id: "C1", amount: "-19.90" });
    expect(
      await mismatchesOf({
        gateway: [sale(1), chargeback],
        ledger: [listedCharge(charge(1, { disputed: true }))],
      }),
    ).toEqual([]);
    expect(await mismatchesOf({ gateway: [sale(1), chargeback], ledger: [listedCharge(charge(1))] })).toEqual(
      [expect.objectContaining({ kind: "missing_here", line: "refund", transaction_id: "C1" })],
    );
  });

  it("fails when the gateway cannot answer", async () => {
    expect(await reconcile(DAY, depsOf({ gateway: [], ledger: [], unavailable: true }).deps)).toEqual({
      kind: "failed",
      reason: "transactions unavailable: HTTP 503",
    });
  });

  it("defaults to yesterday in the gateway's calendar (Korea, UTC+9)", () => {
    expect(previousDay(new Date("2027-03-01T00:30:00.000Z"), gatewayCalendar)).toEqual({
      from: "20270228",
      to: "20270228",
    });
    // 16:00 UTC on 28 February is 01:00 on 1 March in Korea: yesterday there is the 28th, not the 27th.
    expect(previousDay(new Date("2027-02-28T16:00:00.000Z"), gatewayCalendar)).toEqual({
      from: "20270228",
      to: "20270228",
    });
    expect(previousDay(new Date("2027-02-28T14:59:59.000Z"), gatewayCalendar)).toEqual({
      from: "20270227",
      to: "20270227",
    });
  });

  it("reads days as the gateway's: a ledger line belongs to its day in Korea", async () => {
    // 20:00 UTC on 10 March is 05:00 on 11 March in Korea, the trade_date the gateway gives that charge.
    const late = charge(1, { updated_at: "2027-03-10T20:00:00.000Z" });
    const world: World = {
      gateway: [sale(1, { at: "20270311050000" })],
      ledger: [listedCharge(late)],
    };
    const day10 = await reconcile(DAY, depsOf(world).deps);
    const day11 = await reconcile({ from: "20270311", to: "20270311" }, depsOf(world).deps);
    if (day10.kind !== "reconciled" || day11.kind !== "reconciled") throw new Error("not reconciled");
    expect(day10.report).toMatchObject({ gateway_records: 0, ledger_lines: 0, mismatches: [] });
    expect(day11.report).toMatchObject({ gateway_records: 1, ledger_lines: 1, matched: 1, mismatches: [] });
    // The ledger is read from midnight in Korea of the day before the period to the end of the day after it.
    const asked: { from: Date; to: Date }[] = [];
    await reconcile(DAY, {
      ...depsOf(world).deps,
      ledger: {
        async *listLedger(from, to) {
          asked.push({ from, to });
          yield [];
        },
      },
    });
    expect(asked).toEqual([
      { from: new Date("2027-03-08T15:00:00.000Z"), to: new Date("2027-03-11T14:59:59.999Z") },
    ]);
  });
});
