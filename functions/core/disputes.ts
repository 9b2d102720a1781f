import type { Dispute } from "./model";

// Chargebacks have a lifecycle (README, The real gateway): the gateway sends one transaction's CHARGEBACK webhook again
// whenever its chargeback_status changes — reported, then deducted or resolved. Each status is recorded once.

/** What one CHARGEBACK webhook says about the chargeback; the dates as the gateway sends them. */
export interface ChargebackReport {
  /** chargeback_status, e.g. DEDUCTION; absent in the seed's form, which reports a chargeback once. */
  readonly status?: string;
  readonly reason?: string;
  readonly report_date?: string;
  readonly deadline?: string;
  readonly resolve_date?: string;
  readonly deduct_date?: string;
}

/** The status of a chargeback whose webhook names none: the first report. */
const REPORTED_STATUS = "REPORTED";

/** Statuses that end a chargeback: money taken or the dispute decided. */
const FINAL_STATUSES = new Set([
  "DEDUCTION",
  "DEDUCTED",
  "RESOLVED",
  "RESOLUTION",
  "WON",
  "LOST",
  "REVERSED",
  "CLOSED",
  "CANCELED",
  "CANCELLED",
]);
const OPENING_STATUSES = new Set([REPORTED_STATUS, "REPORT", "RECEIVED", "OPENED", "OPEN"]);

/** 0 opening, 1 in progress (e.g. a deadline), 2 final: webhooks can arrive out of order, the stage cannot go back. */
function stage(status: string): number {
  if (FINAL_STATUSES.has(status)) return 2;
  return OPENING_STATUSES.has(status) ? 0 : 1;
}

/** A status as compared and stored: trimmed, upper case. */
export function chargebackStatusOf(report: ChargebackReport): string {
  const status = report.status?.trim().toUpperCase();
  return status === undefined || status === "" ? REPORTED_STATUS : status;
}

const defined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined && field !== ""),
  ) as Partial<T>;

/**
 * The dispute after one report, or undefined when its status was recorded before (a re-send, or a replay). The
 * current status is the furthest one reported: a late "reported" does not reopen a deducted chargeback.
 */
export function applyChargebackReport(
  current: Dispute | undefined,
  report: ChargebackReport,
  receivedAt: Date,
): Dispute | undefined {
  const status = chargebackStatusOf(report);
  if (current?.history.some((entry) => entry.status === status)) return undefined;
  const { status: _status, ...facts } = report;
  const entry = { status, received_at: receivedAt.toISOString() };
  if (current === undefined) return { ...defined(facts), status, history: [entry], revision: 1 };
  return {
    ...current,
    ...defined(facts),
    status: stage(status) >= stage(current.status) ? status : current.status,
    history: [...current.history, entry],
    revision: current.revision + 1,
  };
}
