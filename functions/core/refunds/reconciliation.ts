import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import type { LedgerCharge, LedgerRefund } from "../base/model";
import { attemptKeyOf } from "../base/order-id";
import { failureReason, type GatewayOutcome } from "../base/outcome";
import { isFreeCharge } from "../base/plan-price";
import type { LedgerStore, RefundStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import { type ChargebackRecordingDeps, recordChargebackReport } from "./disputes";

// Daily reconciliation (README, Ops CLI: billing reconcile): the gateway's transactions of a period against our
// ledger (succeeded charges and succeeded refunds). Days are the gateway's calendar days (YYYYMMDD, in its own time
// zone, which its client knows), both ends inclusive: its records are dated in that calendar, and each ledger line's UTC
// instant is read in it too.

/** A ledger line as the ledger index lists it: `at` is when it succeeded here. */
export type LedgerEntry =
  | { readonly kind: "charge"; readonly at: string; readonly attempt: LedgerCharge }
  | { readonly kind: "refund"; readonly at: string; readonly refund: LedgerRefund };

export interface LedgerReader {
  /** Succeeded charges and refunds whose `at` lies in [from, to], page by page. */
  listLedger(from: Date, to: Date): AsyncIterable<readonly LedgerEntry[]>;
}

/** A movement of money the gateway lists for a period: what the comparison reads. */
export interface GatewayRecord {
  readonly transaction_id: string;
  /** The payment a refund or chargeback reverses; undefined for a payment. */
  readonly reverses?: string;
  /** A chargeback's deduction (the gateway took the money back), as the gateway marks it; else a refund. */
  readonly chargeback?: boolean;
  readonly order_id: string;
  /** As the gateway states it: negative for a refund or chargeback. */
  readonly amount: string;
  /** The day it happened on, in the gateway's calendar (YYYYMMDD). */
  readonly day: string;
  /** When it happened, as the gateway wrote it (shown in the report). */
  readonly at: string;
}

/** The gateway's records of a period, and its notes on entries that were no record ("no data"). */
export interface GatewayRecords {
  readonly records: readonly GatewayRecord[];
  readonly notices: readonly string[];
}

/** The gateway's calendar: its days (YYYYMMDD) and the instants they begin. */
export interface GatewayCalendar {
  dayOf(instant: Date): string;
  dayStart(day: string): Date;
  /** The day `days` after (or before) a day. */
  shift(day: string, days: number): string;
}

export interface ReconciliationDeps {
  readonly calendar: GatewayCalendar;
  readonly transactions: (from: string, to: string) => Promise<GatewayOutcome<GatewayRecords>>;
  readonly ledger: LedgerReader;
  /**
   * Point look-ups for gateway records whose ledger line succeeded here outside the listed days; the writes of a
   * chargeback deduction no webhook brought.
   */
  readonly repository: LedgerStore & RefundStore & ChargebackRecordingDeps["repository"];
  readonly clock: Clock;
}

/** Whether eight digits name a real date (no 20270230): the same in every time zone. */
function isCalendarDay(yyyymmdd: string): boolean {
  const date = new Date(Date.UTC(+yyyymmdd.slice(0, 4), +yyyymmdd.slice(4, 6) - 1, +yyyymmdd.slice(6, 8)));
  return date.toISOString().slice(0, 10).replaceAll("-", "") === yyyymmdd;
}

/** A period asked for explicitly (a manual or back-fill run, the ops CLI): YYYYMMDD days, both inclusive. */
const gatewayDay = lazySchema(() =>
  z
    .string()
    .regex(/^\d{8}$/, "must be YYYYMMDD")
    // zod runs the refinement after a failed regex too: only eight digits are read as a day.
    .refine((day) => !/^\d{8}$/.test(day) || isCalendarDay(day), "must be a calendar date (YYYYMMDD)"),
);

export const reconciliationPeriodSchema = lazySchema(() =>
  z
    .object({ from: gatewayDay, to: gatewayDay })
    .refine((period) => period.from <= period.to, { path: ["from"], error: "must not be after to" }),
);

/** One difference; ids and amounts only. */
export const mismatchSchema = lazySchema(() =>
  z
    .object({
      kind: z.enum(["missing_at_gateway", "missing_here", "amount_differs", "status_differs"]),
      /** What the line is: a payment, or a refund / chargeback (negative amount at the gateway). */
      line: z.enum(["charge", "refund"]),
      order_id: z.string(),
      transaction_id: z.string().optional(),
      refund_id: z.string().optional(),
      gateway_amount: z.string().optional(),
      ledger_amount: z.string().optional(),
      ledger_status: z.string().optional(),
      /** YYYYMMDDHHMMSS at the gateway, or the ISO instant it succeeded here. */
      at: z.string(),
    })
    .readonly(),
);
export type Mismatch = z.infer<typeof mismatchSchema>;

/** What a reconciliation finds; the reconcile-ledger function answers it, and the ops CLI reads it back. */
export const reconciliationReportSchema = lazySchema(() =>
  z
    .object({
      from: z.string(),
      to: z.string(),
      gateway_records: z.number().int(),
      ledger_lines: z.number().int(),
      matched: z.number().int(),
      mismatches: z.array(mismatchSchema).readonly(),
      /** Chargeback deductions the gateway lists that no webhook had brought: recorded on their charges now. */
      chargebacks_recorded: z.array(z.string()).readonly(),
      /** resmsg of D entries that were no record ("no data"). */
      notices: z.array(z.string()).readonly(),
    })
    .readonly(),
);
export type ReconciliationReport = z.infer<typeof reconciliationReportSchema>;

export type ReconciliationOutcome =
  | { readonly kind: "reconciled"; readonly report: ReconciliationReport }
  | { readonly kind: "failed"; readonly reason: string };

/** Ledger lines and gateway records are matched over the period widened by this on each side: a charge that
 * succeeded here just after midnight may carry the previous day's trade date, and the other way round. */
const MARGIN_DAYS = 1;

/**
 * A ledger line may succeed here days after its gateway transaction: an outcome we could not read is settled by
 * retrieve once the gateway answers again, and the line's `at` is then. Its transaction is looked for this many days
 * before the period (one more request of the gateway's list, at most 7 days each).
 */
const LATE_SUCCESS_DAYS = 7;

/** The default period of the daily run: yesterday, in the gateway's calendar. */
export function previousDay(
  now: Date,
  calendar: GatewayCalendar,
): { readonly from: string; readonly to: string } {
  const day = calendar.shift(calendar.dayOf(now), -1);
  return { from: day, to: day };
}

/** Equal in minor units; the gateway signs reversals negative, the ledger keeps them positive. */
const cents = (amount: string) => Math.round(Math.abs(Number(amount)) * 100);
const sameAmount = (a: string, b: string) => cents(a) === cents(b);

interface LedgerIndex {
  readonly entries: readonly LedgerEntry[];
  readonly chargesByTransaction: ReadonlyMap<string, LedgerCharge>;
  readonly refundsByTransaction: ReadonlyMap<string, LedgerRefund>;
}

/** The gateway transaction a ledger line stands for. */
const transactionOf = (entry: LedgerEntry) =>
  entry.kind === "charge" ? entry.attempt.transaction_id : entry.refund.refund_transaction_id;

async function readLedger(from: string, to: string, deps: ReconciliationDeps): Promise<LedgerIndex> {
  const { calendar, ledger } = deps;
  const entries: LedgerEntry[] = [];
  const end = new Date(calendar.dayStart(calendar.shift(to, 1)).getTime() - 1);
  // A charge a whole discount made free never reached the gateway (README, Coupons): nothing there to compare.
  for await (const page of ledger.listLedger(calendar.dayStart(from), end))
    entries.push(...page.filter((entry) => entry.kind !== "charge" || !isFreeCharge(entry.attempt)));
  const chargesByTransaction = new Map<string, LedgerCharge>();
  const refundsByTransaction = new Map<string, LedgerRefund>();
  for (const entry of entries) {
    const transactionId = transactionOf(entry);
    if (transactionId === undefined) continue;
    if (entry.kind === "charge") chargesByTransaction.set(transactionId, entry.attempt);
    else refundsByTransaction.set(transactionId, entry.refund);
  }
  return { entries, chargesByTransaction, refundsByTransaction };
}

function missingAtGateway(entry: LedgerEntry): Mismatch {
  const line = entry.kind === "charge" ? entry.attempt : entry.refund;
  return {
    kind: "missing_at_gateway",
    line: entry.kind,
    order_id: line.order_id,
    transaction_id: transactionOf(entry),
    refund_id: entry.kind === "refund" ? entry.refund.refund_id : undefined,
    ledger_amount: line.amount,
    ledger_status: line.status,
    at: entry.at,
  };
}

/** Our charge of a gateway payment: from the listed ledger, else by the order_id that names its ledger line. */
async function chargeOf(record: GatewayRecord, ledger: LedgerIndex, deps: ReconciliationDeps) {
  const listed = ledger.chargesByTransaction.get(record.transaction_id);
  if (listed) return listed;
  const key = attemptKeyOf(record.order_id);
  return key && (await deps.repository.getAttempt(key));
}

async function refundOf(record: GatewayRecord, ledger: LedgerIndex, deps: ReconciliationDeps) {
  const listed = ledger.refundsByTransaction.get(record.transaction_id);
  if (listed) return listed;
  const key = attemptKeyOf(record.order_id);
  const refunds = key ? await deps.repository.listRefunds(key.subscription_id) : [];
  return refunds.find((refund) => refund.refund_transaction_id === record.transaction_id);
}

/** The mismatch of one gateway record of the period, if any. */
async function checkGatewayRecord(
  record: GatewayRecord,
  ledger: LedgerIndex,
  deps: ReconciliationDeps,
): Promise<Checked> {
  const base = {
    order_id: record.order_id,
    transaction_id: record.transaction_id,
    gateway_amount: record.amount,
    at: record.at,
  };
  if (record.reverses === undefined) {
    const charge = await chargeOf(record, ledger, deps);
    if (!charge) return { kind: "missing_here", line: "charge", ...base };
    const facts = { line: "charge", ledger_amount: charge.amount, ledger_status: charge.status } as const;
    if (charge.status !== "succeeded" || charge.transaction_id !== record.transaction_id)
      return { kind: "status_differs", ...facts, ...base };
    if (!sameAmount(charge.amount, record.amount)) return { kind: "amount_differs", ...facts, ...base };
    return undefined;
  }
  const refund = await refundOf(record, ledger, deps);
  if (!refund) {
    // A chargeback is no refund of ours: it matches a charge disputed from its webhook, or is recorded now.
    if (record.chargeback) return checkDeduction(record, deps, base);
    const original = ledger.chargesByTransaction.get(record.reverses);
    const key = attemptKeyOf(record.order_id);
    const charge = original ?? (key && (await deps.repository.getAttempt(key)));
    if (charge?.disputed && charge.transaction_id === record.reverses) return undefined;
    return { kind: "missing_here", line: "refund", ...base };
  }
  const facts = {
    line: "refund",
    refund_id: refund.refund_id,
    ledger_amount: refund.amount,
    ledger_status: refund.status,
  } as const;
  if (refund.status !== "succeeded") return { kind: "status_differs", ...facts, ...base };
  if (!sameAmount(refund.amount, record.amount)) return { kind: "amount_differs", ...facts, ...base };
  return undefined;
}

/** What checking one gateway record came to: a mismatch, a chargeback deduction recorded now, or a match. */
type Checked = Mismatch | { readonly kind: "recorded"; readonly order_id: string } | undefined;

/** How often a deduction is recorded again on a charge whose dispute another report moved meanwhile. */
const DEDUCTION_TRIES = 3;

/**
 * A chargeback deduction the gateway lists: the charge it reverses must be ours and succeeded; its dispute is recorded
 * as deducted unless it already is (the webhook came first). A deduction no webhook brought is recorded here,
 * announced as any chargeback report is. Undefined when it matches; `recorded` carries its order_id.
 */
async function checkDeduction(
  record: GatewayRecord,
  deps: ReconciliationDeps,
  base: Omit<Mismatch, "kind" | "line">,
): Promise<Checked> {
  const key = attemptKeyOf(record.order_id);
  for (let tries = 1; tries <= DEDUCTION_TRIES; tries += 1) {
    const charge = key && (await deps.repository.getAttempt(key));
    if (charge?.status !== "succeeded" || charge.transaction_id !== record.reverses)
      return {
        kind: "missing_here",
        line: "refund",
        ...base,
        ledger_status: charge?.status,
        ledger_amount: charge?.amount,
      };
    const report = { status: DEDUCTED, deduct_date: record.day };
    const recorded = await recordChargebackReport(charge, report, deps.clock.now(), deps);
    if (recorded.kind === "duplicate") return undefined;
    if (recorded.kind === "recorded") return { kind: "recorded", order_id: charge.order_id };
    if (recorded.kind === "no_subscription") break;
  }
  return { kind: "status_differs", line: "refund", ...base };
}

/** The status a listed deduction records: the gateway's own word for a chargeback that took the money. */
const DEDUCTED = "DEDUCTION";

/**
 * Compares the period's gateway transactions with our ledger. Every gateway record dated in the period must have a
 * succeeded ledger line with the same transaction and amount; every ledger line that succeeded here in the period
 * must appear at the gateway (looked for from LATE_SUCCESS_DAYS before the period to MARGIN_DAYS after it).
 * Chargebacks match disputed charges.
 */
export async function reconcile(
  period: { readonly from: string; readonly to: string },
  deps: ReconciliationDeps,
): Promise<ReconciliationOutcome> {
  const { calendar } = deps;
  const wideFrom = calendar.shift(period.from, -MARGIN_DAYS);
  const wideTo = calendar.shift(period.to, MARGIN_DAYS);
  const gateway = await deps.transactions(calendar.shift(period.from, -LATE_SUCCESS_DAYS), wideTo);
  if (gateway.kind !== "success") {
    return { kind: "failed", reason: `transactions unavailable: ${failureReason(gateway)}` };
  }
  const { records } = gateway.value;
  const ledger = await readLedger(wideFrom, wideTo, deps);
  const inPeriod = (day: string) => day >= period.from && day <= period.to;

  const mismatches: Mismatch[] = [];
  const chargebacksRecorded: string[] = [];
  const periodRecords = records.filter((record) => inPeriod(record.day));
  for (const record of periodRecords) {
    const checked = await checkGatewayRecord(record, ledger, deps);
    if (checked?.kind === "recorded") chargebacksRecorded.push(checked.order_id);
    else if (checked) mismatches.push(checked);
  }
  const matched = periodRecords.length - mismatches.length;

  const atGateway = new Set(records.map((record) => record.transaction_id));
  const periodLines = ledger.entries.filter((entry) => inPeriod(calendar.dayOf(new Date(entry.at))));
  for (const entry of periodLines) {
    const transactionId = transactionOf(entry);
    if (transactionId === undefined || !atGateway.has(transactionId))
      mismatches.push(missingAtGateway(entry));
  }
  return {
    kind: "reconciled",
    report: {
      from: period.from,
      to: period.to,
      gateway_records: periodRecords.length,
      ledger_lines: periodLines.length,
      matched,
      mismatches,
      chargebacks_recorded: chargebacksRecorded,
      notices: gateway.value.notices,
    },
  };
}
