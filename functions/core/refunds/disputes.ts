import { chargeFactsOf, placedOnCharge } from "../base/events";
import type { ChargeAttempt, Dispute } from "../base/model";
import type { LedgerStore, SubscriptionStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";

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

export interface ChargebackRecordingDeps {
  readonly repository: SubscriptionStore & LedgerStore;
  readonly clock: Clock;
}

/** What recording one chargeback report on a charge came to. */
export type ChargebackRecording =
  /** Stored on the charge and announced (chargeback.received, or chargeback.updated with the previous status). */
  | { readonly kind: "recorded"; readonly status: string }
  /** Its status was recorded before (a re-send, a replay, the webhook that reconciliation's report followed). */
  | { readonly kind: "duplicate"; readonly status: string }
  /** Another report changed the charge's dispute meanwhile: read the charge again and repeat. */
  | { readonly kind: "raced" }
  | { readonly kind: "no_subscription" };

/**
 * Records one chargeback report on a succeeded charge — however it arrived: the gateway's signed webhook, its
 * re-sends, or reconciliation's listing of the deduction — with a compare-and-set on the dispute's revision, so each
 * status is stored and announced once: the first as chargeback.received, later ones as chargeback.updated.
 */
export async function recordChargebackReport(
  charge: ChargeAttempt,
  report: ChargebackReport & { readonly chargeback_id?: string },
  receivedAt: Date,
  deps: ChargebackRecordingDeps,
): Promise<ChargebackRecording> {
  const { chargeback_id, ...facts } = report;
  const dispute = applyChargebackReport(charge.dispute, facts, receivedAt);
  if (!dispute) return { kind: "duplicate", status: chargebackStatusOf(facts) };
  const subscription = await deps.repository.getSubscription(charge.subscription_id);
  if (!subscription) return { kind: "no_subscription" };
  const announced = {
    ...chargeFactsOf(charge, subscription),
    transaction_id: charge.transaction_id,
    chargeback_id,
    chargeback_status: dispute.status,
    reason: dispute.reason,
  };
  const marked = await deps.repository.updateAttempt(charge, {
    expect: { status: "succeeded", dispute_revision: charge.dispute?.revision ?? 0 },
    set: { disputed: true, dispute, updated_at: deps.clock.now().toISOString() },
    events: [
      placedOnCharge(
        subscription,
        charge.dispute === undefined
          ? { type: "chargeback.received", ...announced }
          : { type: "chargeback.updated", ...announced, previous_status: charge.dispute.status },
        dispute.revision,
      ),
    ],
  });
  return marked ? { kind: "recorded", status: dispute.status } : { kind: "raced" };
}
