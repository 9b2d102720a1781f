import type { ChargeView } from "../../functions/api/merchant-api-views";
import type { RevenueMovement } from "../../functions/core/base/events";
import { OPEN_ATTEMPT_STATUSES } from "../../functions/core/base/model";
import { fromCents, toCents } from "../../functions/core/base/money";
import type { SubscriptionView } from "../../functions/core/base/subscription-view";
import type { ReconciliationRun } from "../../functions/core/refunds/settlements";
import type { PayoutsReport } from "../../functions/core/reports/payouts";
import {
  movementTotals,
  netMovement,
  type RevenueMonth,
  type RevenueNow,
} from "../../functions/core/reports/revenue";
import type { FaultCounts } from "../../sandbox/faults/faults";
import type { LedgerComparison } from "../audit/ledger-comparison";
import { type RealFormCounts, realFormRows } from "../audit/real-forms";

// What the demo saw, reduced to its summary and its invariants: pure, so a violating ledger can be fed in by a test.

export interface DemoObservations {
  /** The shared clock when the subscriptions were read. */
  readonly now: Date;
  readonly customers: number;
  /** Every subscription the sign-ups made, as the API shows it at the end. */
  readonly subscriptions: readonly SubscriptionView[];
  /** The ledger of each subscription (GET …/charges). */
  readonly charges: ReadonlyMap<string, readonly ChargeView[]>;
  /** Sign-ups the gateway declined at once (422 with the decline code): no subscription. */
  readonly signupDeclines: number;
  /** Checkouts whose payment window was never completed. */
  readonly abandonedWindows: ReadonlySet<string>;
  /** Requests the merchant repeated with the same Idempotency-Key (5xx, lost connection, still in progress). */
  readonly retries: number;
  readonly faults: FaultCounts;
  readonly ledgers: Pick<
    LedgerComparison,
    "ours" | "sandbox" | "mismatches" | "doubleCharges" | "liveTokens"
  >;
  /** Messages in the dead-letter queues. */
  readonly deadLetters: number;
  /** The real gateway's own forms the month met. */
  readonly realForms: RealFormCounts;
  /** The lifecycle requests the script made (card updates, pauses, upgrades, …) and what each must lead to. */
  readonly lifecycle: readonly LifecycleOutcome[];
}

export type LifecycleChange =
  | "card updated"
  | "canceled at period end"
  | "paused and resumed"
  | "upgraded with proration"
  | "started with a trial";

/** One subscription's lifecycle change in the script, and the state it must be in at the end. */
export interface LifecycleOutcome {
  readonly subscription_id: string;
  readonly change: LifecycleChange;
  /** Absent when the change's payment was still being settled when asked (a 202): either end is explained. */
  readonly expect?: { readonly status: SubscriptionView["status"]; readonly status_reason?: string };
}

/** Amounts per currency. */
export type Amounts = ReadonlyMap<string, string>;

export interface DemoSummary {
  readonly customers: number;
  readonly charged: number;
  readonly declined: number;
  readonly signupDeclines: number;
  /** Subscriptions with a period declined first and paid by a later attempt. */
  readonly recovered: number;
  readonly active: number;
  readonly pastDue: number;
  readonly canceled: number;
  readonly pending: number;
  /** How many past_due and canceled subscriptions each reason explains. */
  readonly reasons: Readonly<Record<"pastDue" | "canceled", ReadonlyMap<string, number>>>;
  readonly refunds: number;
  readonly refunded: Amounts;
  /** Succeeded minus refunded. */
  readonly revenue: Amounts;
  readonly retries: number;
  readonly faults: FaultCounts;
  readonly realForms: RealFormCounts;
  /** How many subscriptions took each lifecycle change. */
  readonly lifecycle: ReadonlyMap<LifecycleChange, number>;
  /** Subscriptions on an annual plan, with more than one seat, and charged less a coupon's discount. */
  readonly pricing: { readonly annual: number; readonly seats: number; readonly coupons: number };
  /** The invoices the paid charges name. */
  readonly invoices: number;
  readonly wallMs: number;
}

/** past_due reasons that need no dunning step: the subscription waits for a new card. */
const WAITING_FOR_A_CARD = new Set([
  "token_expired",
  "token_revoked",
  "card_required",
  "recurring_charge_failed",
]);

const OPEN_CHARGE: ReadonlySet<ChargeView["status"]> = new Set(OPEN_ATTEMPT_STATUSES);

function sumByCurrency(items: readonly { readonly currency: string; readonly cents: number }[]): Amounts {
  const totals = new Map<string, number>();
  for (const { currency, cents } of items) totals.set(currency, (totals.get(currency) ?? 0) + cents);
  return new Map(
    [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([c, cents]) => [c, fromCents(cents, c)]),
  );
}

function recoveredByRetry(charges: readonly ChargeView[]): boolean {
  const scheduled = charges.filter((charge) => charge.kind === "scheduled");
  return scheduled.some(
    (declined) =>
      declined.status === "declined" &&
      scheduled.some(
        (paid) =>
          paid.period === declined.period && paid.attempt > declined.attempt && paid.status === "succeeded",
      ),
  );
}

/** Subscriptions of a status by their reason (a dunning step's, or the status_reason), most frequent first. */
function reasonsOf(subscriptions: readonly SubscriptionView[], status: SubscriptionView["status"]) {
  const counts = new Map<string, number>();
  for (const subscription of subscriptions) {
    if (subscription.status !== status) continue;
    const reason = subscription.status_reason ?? subscription.dunning?.reason ?? "unstated";
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return new Map([...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
}

export function summarize(observed: DemoObservations, wallMs: number): DemoSummary {
  const charges = [...observed.charges.values()].flat();
  const succeeded = charges.filter((charge) => charge.status === "succeeded");
  const refundedCharges = succeeded.filter((charge) => toCents(charge.refunded_amount) > 0);
  const countStatus = (status: SubscriptionView["status"]) =>
    observed.subscriptions.filter((subscription) => subscription.status === status).length;
  return {
    customers: observed.customers,
    charged: succeeded.length,
    declined: charges.filter((charge) => charge.status === "declined").length,
    signupDeclines: observed.signupDeclines,
    recovered: [...observed.charges.values()].filter(recoveredByRetry).length,
    active: countStatus("active"),
    pastDue: countStatus("past_due"),
    canceled: countStatus("canceled"),
    pending: countStatus("pending"),
    reasons: {
      pastDue: reasonsOf(observed.subscriptions, "past_due"),
      canceled: reasonsOf(observed.subscriptions, "canceled"),
    },
    refunds: refundedCharges.length,
    refunded: sumByCurrency(
      refundedCharges.map(({ currency, refunded_amount }) => ({ currency, cents: toCents(refunded_amount) })),
    ),
    revenue: sumByCurrency(
      succeeded.map(({ currency, amount, refunded_amount }) => ({
        currency,
        cents: toCents(amount) - toCents(refunded_amount),
      })),
    ),
    retries: observed.retries,
    faults: observed.faults,
    realForms: observed.realForms,
    lifecycle: countBy(observed.lifecycle.map((outcome) => outcome.change)),
    pricing: {
      annual: observed.subscriptions.filter(({ plan }) => plan.interval_months === 12).length,
      seats: observed.subscriptions.filter(({ plan }) => plan.quantity > 1).length,
      coupons: [...observed.charges.values()].filter((lines) =>
        lines.some((line) => line.status === "succeeded" && toCents(line.discount) > 0),
      ).length,
    },
    invoices: new Set(charges.flatMap((charge) => charge.invoice_number ?? [])).size,
    wallMs,
  };
}

/**
 * An invoice number on two charges. (Gaps are the chaos run's to find, from the store: a sign-up whose request
 * failed, paid and then refunded by the sweep, holds a number of a subscription the demo never learned.)
 */
function invoiceViolations(charges: readonly ChargeView[]): string[] {
  const holders = new Map<string, string[]>();
  for (const { invoice_number: number, charge_id } of charges)
    if (number !== undefined) holders.set(number, [...(holders.get(number) ?? []), charge_id]);
  return [...holders]
    .filter(([, charged]) => charged.length > 1)
    .map(([number, charged]) => `invoice ${number} on ${charged.length} charges: ${charged.join(", ")}`);
}

function countBy<T>(items: readonly T[]): ReadonlyMap<T, number> {
  const counts = new Map<T, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

/** A lifecycle change whose subscription did not end where the change leads. */
function lifecycleViolation(
  outcome: LifecycleOutcome,
  subscriptions: ReadonlyMap<string, SubscriptionView>,
): string | undefined {
  const { expect } = outcome;
  if (expect === undefined) return undefined;
  const subscription = subscriptions.get(outcome.subscription_id);
  const state = (status?: string, reason?: string) => `${status ?? "missing"}${reason ? ` (${reason})` : ""}`;
  const met =
    subscription?.status === expect.status &&
    (expect.status_reason === undefined || subscription.status_reason === expect.status_reason);
  return met
    ? undefined
    : `${outcome.subscription_id}: ${outcome.change}, should end ${state(expect.status, expect.status_reason)}, ` +
        `is ${state(subscription?.status, subscription?.status_reason)}`;
}

/** Why a subscription's state cannot be explained by what happened to it, if it cannot. */
function stateViolation(subscription: SubscriptionView, observed: DemoObservations): string | undefined {
  const { subscription_id: id, current_period: paid } = subscription;
  switch (subscription.status) {
    case "active":
      return paid !== null && new Date(paid.end) > observed.now
        ? undefined
        : `${id}: active but not paid through ${observed.now.toISOString()}`;
    case "past_due":
      return subscription.dunning !== undefined || WAITING_FOR_A_CARD.has(subscription.status_reason ?? "")
        ? undefined
        : `${id}: past_due without a dunning step or a reason`;
    case "pending":
      return observed.abandonedWindows.has(id)
        ? undefined
        : `${id}: pending though its sign-up was completed`;
    case "paused":
      return `${id}: paused, which the demo never asks for`;
    case "trialing":
      return subscription.trial_end !== null && new Date(subscription.trial_end) > observed.now
        ? undefined
        : `${id}: trialing after its trial ended`;
    case "canceled":
      return undefined;
  }
}

/** Every broken invariant; none means the month is accounted for. */
export function violationsOf(observed: DemoObservations): string[] {
  const { ledgers } = observed;
  const byId = new Map(
    observed.subscriptions.map((subscription) => [subscription.subscription_id, subscription]),
  );
  const openCharges = [...observed.charges.values()]
    .flat()
    .filter((charge) => OPEN_CHARGE.has(charge.status))
    .map((charge) => `${charge.charge_id}: still ${charge.status} at the end`);
  return [
    ...ledgers.mismatches.map((mismatch) => `ledger mismatch: ${mismatch}`),
    ...ledgers.doubleCharges.map((period) => `double charge: ${period}`),
    ...ledgers.liveTokens.map((line) => `live token: ${line}`),
    ...observed.subscriptions.flatMap((subscription) => stateViolation(subscription, observed) ?? []),
    ...openCharges,
    ...invoiceViolations([...observed.charges.values()].flat()),
    ...observed.lifecycle.flatMap((outcome) => lifecycleViolation(outcome, byId) ?? []),
    ...(observed.deadLetters > 0 ? [`${observed.deadLetters} messages in the dead-letter queues`] : []),
  ];
}

export function exitCodeOf(violations: readonly string[]): 0 | 1 {
  return violations.length === 0 ? 0 : 1;
}

const withReasons = (count: number, reasons: ReadonlyMap<string, number>) =>
  reasons.size === 0 ? String(count) : `${count} (${[...reasons].map(([r, n]) => `${n} ${r}`).join(", ")})`;

const formatAmounts = (amounts: Amounts) =>
  amounts.size === 0 ? "0" : [...amounts].map(([currency, amount]) => `${currency} ${amount}`).join(" · ");

/** The summary as a two-column table. */
export function formatSummary(summary: DemoSummary): string[] {
  const { faults } = summary;
  const injected =
    faults.error +
    faults.internalError +
    faults.timeoutAfterCommit +
    faults.reset +
    faults.duplicateStatusUrl;
  const rows: [string, string][] = [
    ["customers", String(summary.customers)],
    ["charged", `${summary.charged} charges`],
    ["declined", `${summary.declined} charges, ${summary.signupDeclines} sign-ups`],
    ["recovered by retry", String(summary.recovered)],
    ["active", String(summary.active)],
    ["past_due", withReasons(summary.pastDue, summary.reasons.pastDue)],
    ["canceled", withReasons(summary.canceled, summary.reasons.canceled)],
    ["pending", String(summary.pending)],
    [
      "lifecycle",
      summary.lifecycle.size === 0
        ? "none"
        : [...summary.lifecycle].map(([change, count]) => `${count} ${change}`).join(", "),
    ],
    [
      "pricing",
      `${summary.pricing.annual} annual, ${summary.pricing.seats} with seats, ` +
        `${summary.pricing.coupons} charged less a coupon`,
    ],
    ["invoices", `${summary.invoices}, none on two charges`],
    ["refunded", `${summary.refunds} charges, ${formatAmounts(summary.refunded)}`],
    ["revenue", formatAmounts(summary.revenue)],
    ["requests repeated", `${summary.retries} (same Idempotency-Key)`],
    [
      "faults injected",
      `${injected}: ${faults.error} 5xx, ${faults.internalError} EM00/EX1000, ` +
        `${faults.timeoutAfterCommit} timeouts after commit, ${faults.reset} resets, ` +
        `${faults.duplicateStatusUrl} duplicate callbacks`,
    ],
    ...realFormRows(summary.realForms),
    ["wall time", `${(summary.wallMs / 1000).toFixed(1)} s`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const valueWidth = Math.max(...rows.map(([, value]) => value.length));
  const rule = `+${"-".repeat(width + 2)}+${"-".repeat(valueWidth + 2)}+`;
  return [
    rule,
    ...rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value.padEnd(valueWidth)} |`),
    rule,
  ];
}

/** What `npx billing reconcile` and `npx billing report payouts` said of the demo's days. */
export interface DemoReconciliation {
  readonly run: ReconciliationRun;
  readonly payouts: PayoutsReport;
}

/** Every difference the gateway's own reports show: none may remain once the month has settled. */
export function reconciliationViolations(run: ReconciliationRun): string[] {
  return [
    ...run.mismatches.map(
      (mismatch) => `reconciliation: ${mismatch.kind} ${mismatch.line} ${mismatch.order_id}`,
    ),
    ...run.settlement_mismatches.map(
      (mismatch) =>
        `payout: ${mismatch.kind} ${mismatch.line} ${mismatch.order_id ?? mismatch.remittance_date ?? ""}`,
    ),
  ];
}

/** The gateway's reports of the days, as printed after the table. */
export function formatReconciliation({ run, payouts }: DemoReconciliation): string[] {
  const mismatches = run.mismatches.length + run.settlement_mismatches.length;
  return [
    `reconciled with the gateway's reports: ${run.gateway_records} transactions, ${payouts.payouts.length} payouts, ` +
      `${mismatches} mismatches`,
    ...payouts.totals.map(
      (total) =>
        `paid out ${total.net} ${total.currency} in ${total.remittances} payouts: ${total.gross} gross, ` +
        `${total.fees} fees, ${total.vat} VAT on fees`,
    ),
  ];
}

/** The reconciliation and the invariants, as printed after the table. */
export function formatInvariants(observed: DemoObservations, violations: readonly string[]): string[] {
  const { ledgers } = observed;
  return [
    `reconciliation: ${ledgers.ours.succeeded} succeeded charges here, ${ledgers.sandbox.sales} sales at the ` +
      `gateway; ${ledgers.mismatches.length} mismatches, ${ledgers.doubleCharges.length} double charges`,
    ...(violations.length === 0
      ? ["invariants: OK"]
      : [`invariants: ${violations.length} violated`, ...violations.map((violation) => `  - ${violation}`)]),
  ];
}

/** The dashboard's revenue figures at the demo's end (README, Revenue report). */
export interface DemoDashboard {
  /** measure-revenue's: MRR and paying subscriptions per currency. */
  readonly measured: readonly RevenueNow[];
  /** Per currency, the MRR movements of every logged event: new + expansion − contraction − churned, and how many. */
  readonly moved: ReadonlyMap<string, { readonly net: number; readonly movements: number }>;
}

/** The movements the events carry, netted per currency, and how many there were. */
export function netMovements(
  events: readonly { readonly mrr_movements?: readonly RevenueMovement[] }[],
): Map<string, { net: number; movements: number }> {
  const moved = new Map<string, { net: number; movements: number }>();
  for (const [currency, byKind] of movementTotals(events)) {
    const movements = events
      .flatMap((event) => event.mrr_movements ?? [])
      .filter((m) => m.currency === currency);
    moved.set(currency, {
      net: netMovement(byKind),
      movements: movements.length,
    });
  }
  return moved;
}

/**
 * The dashboard must say what the report says: measure-revenue's MRR and count are the month's at its end, and the
 * movements the events carried add up to that MRR (each rounded to the minor unit: half a cent of slack per movement).
 */
export function dashboardViolations(month: readonly RevenueMonth[], dashboard: DemoDashboard): string[] {
  const currencies = new Set([
    ...month.map((row) => row.currency),
    ...dashboard.measured.map((row) => row.currency),
    ...dashboard.moved.keys(),
  ]);
  return [...currencies].flatMap((currency) => {
    const reported = month.find((row) => row.currency === currency);
    const measured = dashboard.measured.find((row) => row.currency === currency);
    const moved = dashboard.moved.get(currency) ?? { net: 0, movements: 0 };
    const mrr = Number(measured?.mrr ?? 0);
    const problems: string[] = [];
    if (mrr !== Number(reported?.mrr ?? 0) || (measured?.active ?? 0) !== (reported?.active ?? 0))
      problems.push(
        `dashboard: ${currency} MRR ${measured?.mrr ?? 0} from ${measured?.active ?? 0} paying, the report ${reported?.mrr ?? 0} from ${reported?.active ?? 0}`,
      );
    if (Math.abs(moved.net - mrr) > 0.005 * (moved.movements + 1))
      problems.push(`dashboard: ${currency} movements add up to ${moved.net.toFixed(2)}, not the MRR ${mrr}`);
    return problems;
  });
}

/** The dashboard's figures, as printed after the revenue line. */
export const formatDashboard = (dashboard: DemoDashboard): string[] =>
  dashboard.measured.map(
    ({ currency, mrr, active }) =>
      `dashboard (measure-revenue): MRR ${mrr} ${currency} from ${active} paying; ` +
      `${dashboard.moved.get(currency)?.movements ?? 0} MRR movements in the events add up to ${(dashboard.moved.get(currency)?.net ?? 0).toFixed(2)}`,
  );
