import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import type { AttemptKey, ChargeAttempt } from "../base/model";
import { signedAmount, signedCents } from "../base/money";
import { attemptKeyOf } from "../base/order-id";
import { failureReason, type GatewayOutcome } from "../base/outcome";
import { isFreeCharge } from "../base/plan-price";
import type { LedgerStore, RefundStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import { type Payout, payoutSchema, type SettledKind, type SettlementStore } from "../ports/settlement-store";
import {
  type GatewayCalendar,
  type LedgerEntry,
  type LedgerReader,
  type ReconciliationDeps,
  reconcile,
  reconciliationReportSchema,
} from "./reconciliation";

// Where the money went (README, Payouts): each day's remittances as the gateway reports them, matched movement by
// movement to the ledger. Each movement's fees, their VAT and what was paid out are recorded on its ledger line's
// subscription, each remittance's stated payout is checked against its movements, and a ledger line no remittance
// carried within the settlement delay and its grace is reported.

/** A movement is paid out this many days after its trade day (the gateway's expected settlements cover day − 2). */
export const SETTLEMENT_DELAY_DAYS = 2;
/** Days past the delay before a ledger line not yet paid out is reported: weekends and bank holidays. */
export const SETTLEMENT_GRACE_DAYS = 3;

/** One movement of a remittance, in the core's words. */
export interface SettledMovement {
  readonly kind: SettledKind;
  readonly transaction_id: string;
  readonly order_id: string;
  /** As charged, in `currency`: negative for a refund or chargeback. */
  readonly amount: string;
  readonly currency: string;
  /** In the remittance's currency: the amount converted (signed like `amount`) and what is paid out for it. */
  readonly gross: string;
  readonly net: string;
  /** The gateway's fees and their VAT, as magnitudes: whether deducted or given back follows from gross and net. */
  readonly fees: string;
  readonly vat: string;
  /** When it happened, as the gateway wrote it (YYYYMMDDHHMMSS). */
  readonly at: string;
}

/** One remittance: the movements of one payout in one currency, and what the gateway states about it. */
export interface Remittance {
  readonly date: string;
  readonly currency: string;
  readonly movements: readonly SettledMovement[];
  readonly stated: {
    /** How many movements the gateway says it carries. */
    readonly count: number;
    /** What it pays out, in `currency`; adjustments it made outside the movements. */
    readonly net: string;
    readonly adjust: string;
    /** The deposit, when paid in another currency. */
    readonly deposit_currency: string;
    readonly deposit_amount: string;
  };
}

export interface Remittances {
  readonly remittances: readonly Remittance[];
  readonly notices: readonly string[];
}

/** One difference between a remittance and the ledger; ids and amounts only. */
export const settlementMismatchSchema = lazySchema(() =>
  z
    .object({
      kind: z.enum([
        "missing_here",
        "amount_differs",
        "status_differs",
        "fees_differ",
        "total_differs",
        "settled_twice",
        "unsettled",
      ]),
      line: z.enum(["charge", "refund", "chargeback", "remittance"]),
      /** The remittance it was found in; none for a ledger line no remittance carried. */
      remittance_date: z.string().optional(),
      currency: z.string(),
      order_id: z.string().optional(),
      transaction_id: z.string().optional(),
      refund_id: z.string().optional(),
      /** What the gateway states (an amount, or a remittance's payout) and what the ledger or the movements say. */
      gateway_amount: z.string().optional(),
      ledger_amount: z.string().optional(),
      ledger_status: z.string().optional(),
      /** YYYYMMDDHHMMSS at the gateway, or the ISO instant it succeeded here. */
      at: z.string(),
    })
    .readonly(),
);
export type SettlementMismatch = z.infer<typeof settlementMismatchSchema>;

/** A reconciliation run's report: the transactions compared (reconciliation.ts), and the payouts of its days. */
export const reconciliationRunSchema = lazySchema(() =>
  z
    .object({
      ...reconciliationReportSchema.unwrap().shape,
      payouts: z.array(payoutSchema).readonly(),
      settlement_mismatches: z.array(settlementMismatchSchema).readonly(),
    })
    .readonly(),
);
export type ReconciliationRun = z.infer<typeof reconciliationRunSchema>;

export interface SettlementDeps {
  readonly calendar: GatewayCalendar;
  readonly settlements: (date: string) => Promise<GatewayOutcome<Remittances>>;
  readonly expectedSettlements: (date: string) => Promise<GatewayOutcome<Remittances>>;
  readonly ledger: LedgerReader;
  readonly repository: Pick<LedgerStore, "getAttempt"> & Pick<RefundStore, "getRefund" | "listRefunds">;
  readonly settlementStore: SettlementStore;
  readonly clock: Clock;
}

export interface SettlementReport {
  readonly payouts: readonly Payout[];
  readonly mismatches: readonly SettlementMismatch[];
  readonly notices: readonly string[];
}

export type SettlementOutcome =
  | { readonly kind: "reconciled"; readonly report: SettlementReport }
  | { readonly kind: "failed"; readonly reason: string };

/**
 * The fees and VAT a movement carries, signed as they moved: a sale's are deducted (net = gross − fees − VAT); a
 * reversal's may be deducted too, or given back (net = gross + fees + VAT). Undefined when net is neither.
 */
function signedFees(movement: SettledMovement): { fees: number; vat: number } | undefined {
  const [gross, net, fees, vat] = [movement.gross, movement.net, movement.fees, movement.vat].map(
    signedCents,
  );
  if (gross === undefined || net === undefined || fees === undefined || vat === undefined) return undefined;
  if (net === gross - fees - vat) return { fees, vat };
  if (movement.kind !== "sale" && net === gross + fees + vat) return { fees: -fees, vat: -vat };
  return undefined;
}

// ───────────── matching a movement to its ledger line ─────────────

/** What a movement was matched to: the subscription its settlement is kept on, and a mismatch if any. */
interface Matched {
  readonly subscription_id?: string;
  readonly refund_id?: string;
  readonly mismatch?: Omit<SettlementMismatch, "remittance_date" | "currency" | "at">;
}

const sameMagnitude = (a: string, b: string) => Math.abs(signedCents(a)) === Math.abs(signedCents(b));

const LINE_OF = { sale: "charge", refund: "refund", chargeback: "chargeback" } as const;

/** What a mismatch says of a movement: its line, order, transaction and amount. */
const factsOf = (movement: SettledMovement) =>
  ({
    line: LINE_OF[movement.kind],
    order_id: movement.order_id,
    transaction_id: movement.transaction_id,
    gateway_amount: movement.amount,
  }) as const;

/**
 * A sale pays out a succeeded charge of its transaction, amount and currency; a chargeback takes back (part of) a
 * succeeded charge we know as disputed.
 */
function matchCharge(movement: SettledMovement, charge: ChargeAttempt | undefined | false): Matched {
  const base = factsOf(movement);
  if (!charge) return { mismatch: { kind: "missing_here", ...base } };
  const facts = { ...base, ledger_amount: charge.amount, ledger_status: charge.status };
  const { subscription_id } = charge;
  const sale = movement.kind === "sale";
  const held = sale ? charge.transaction_id === movement.transaction_id : charge.disputed === true;
  if (charge.status !== "succeeded" || !held)
    return { subscription_id, mismatch: { kind: "status_differs", ...facts } };
  const cents = Math.abs(signedCents(movement.amount));
  const fits = sale ? cents === signedCents(charge.amount) : cents <= signedCents(charge.amount);
  if (charge.currency !== movement.currency || !fits)
    return { subscription_id, mismatch: { kind: "amount_differs", ...facts } };
  return { subscription_id };
}

const transactionOf = (entry: LedgerEntry) =>
  entry.kind === "charge" ? entry.attempt.transaction_id : entry.refund.refund_transaction_id;

/** Where a ledger line is: a charge by its key, a refund by its id (a reference, so a day's lines stay small). */
type LineRef =
  | { readonly kind: "charge"; readonly key: AttemptKey }
  | { readonly kind: "refund"; readonly refund_id: string };

/**
 * The lines that succeeded here from the first remittance date's trade day, less a day, to the last remittance date,
 * by gateway transaction: a movement is found among them by its transaction, as a gateway-run charge must be (its
 * order_id is the gateway's, no key of ours). An older movement is looked up by the order_id that names its line.
 */
async function lineRefs(
  from: string,
  to: string,
  deps: SettlementDeps,
): Promise<ReadonlyMap<string, LineRef>> {
  const { calendar } = deps;
  const start = calendar.dayStart(calendar.shift(from, -(SETTLEMENT_DELAY_DAYS + 1)));
  const end = new Date(calendar.dayStart(calendar.shift(to, 1)).getTime() - 1);
  const refs = new Map<string, LineRef>();
  for await (const page of deps.ledger.listLedger(start, end))
    for (const entry of page) {
      const transactionId = transactionOf(entry);
      if (transactionId === undefined) continue;
      const { subscription_id, period, attempt } = entry.kind === "charge" ? entry.attempt : entry.refund;
      refs.set(
        transactionId,
        entry.kind === "charge"
          ? { kind: "charge", key: { subscription_id, period, attempt } }
          : { kind: "refund", refund_id: entry.refund.refund_id },
      );
    }
  return refs;
}

async function matchMovement(
  movement: SettledMovement,
  refs: ReadonlyMap<string, LineRef>,
  deps: SettlementDeps,
): Promise<Matched> {
  const ref = refs.get(movement.transaction_id);
  const ordered = attemptKeyOf(movement.order_id);
  if (movement.kind !== "refund") {
    // A chargeback's original is older than the days read: only its order_id names it.
    const key = movement.kind === "sale" && ref?.kind === "charge" ? ref.key : ordered;
    return matchCharge(movement, key && (await deps.repository.getAttempt(key)));
  }
  const refunds =
    ref?.kind === "refund"
      ? [await deps.repository.getRefund(ref.refund_id)].flatMap((found) => found ?? [])
      : ordered
        ? await deps.repository.listRefunds(ordered.subscription_id)
        : [];
  const refund = refunds.find((each) => each.refund_transaction_id === movement.transaction_id);
  const base = factsOf(movement);
  if (!refund) return { mismatch: { kind: "missing_here", ...base } };
  const facts = {
    ...base,
    refund_id: refund.refund_id,
    ledger_amount: refund.amount,
    ledger_status: refund.status,
  };
  const matched = { subscription_id: refund.subscription_id, refund_id: refund.refund_id };
  if (refund.status !== "succeeded") return { ...matched, mismatch: { kind: "status_differs", ...facts } };
  if (refund.currency !== movement.currency || !sameMagnitude(refund.amount, movement.amount))
    return { ...matched, mismatch: { kind: "amount_differs", ...facts } };
  return matched;
}

/** Matches, checks and keeps one movement of a remittance; its mismatches. */
async function settleMovement(
  remittance: Remittance,
  movement: SettledMovement,
  refs: ReadonlyMap<string, LineRef>,
  deps: SettlementDeps,
): Promise<SettlementMismatch[]> {
  const where = { remittance_date: remittance.date, currency: remittance.currency, at: movement.at };
  const facts = { ...where, ...factsOf(movement) };
  const mismatches: SettlementMismatch[] = [];
  const fees = signedFees(movement);
  if (!fees)
    mismatches.push({
      kind: "fees_differ",
      ...facts,
      gateway_amount: movement.net,
      ledger_amount: signedAmount(
        signedCents(movement.gross) - signedCents(movement.fees) - signedCents(movement.vat),
        remittance.currency,
      ),
    });
  const matched = await matchMovement(movement, refs, deps);
  if (matched.mismatch) mismatches.push({ ...where, ...matched.mismatch });
  if (matched.subscription_id === undefined) return mismatches;
  const kept = await deps.settlementStore.recordSettlement({
    subscription_id: matched.subscription_id,
    transaction_id: movement.transaction_id,
    kind: movement.kind,
    order_id: movement.order_id,
    ...(matched.refund_id === undefined ? {} : { refund_id: matched.refund_id }),
    remittance_date: remittance.date,
    currency: remittance.currency,
    gross: movement.gross,
    fees: signedAmount(fees?.fees ?? signedCents(movement.fees), remittance.currency),
    vat: signedAmount(fees?.vat ?? signedCents(movement.vat), remittance.currency),
    net: movement.net,
    recorded_at: deps.clock.now().toISOString(),
  });
  if (!kept.recorded && kept.remittance_date !== remittance.date)
    mismatches.push({ kind: "settled_twice", ...facts });
  return mismatches;
}

// ───────────── remittances ─────────────

/** A remittance's sums: its movements' gross, fees, VAT and net, and what the gateway states it pays out. */
function payoutOf(remittance: Remittance, status: Payout["status"]): Payout {
  const { currency, movements, stated } = remittance;
  const sum = (pick: (movement: SettledMovement) => number) =>
    signedAmount(
      movements.reduce((total, movement) => total + pick(movement), 0),
      currency,
    );
  const feesOf = (movement: SettledMovement) => signedFees(movement) ?? { fees: 0, vat: 0 };
  return {
    remittance_date: remittance.date,
    currency,
    status,
    movements: movements.length,
    gross: sum((movement) => signedCents(movement.gross)),
    fees: sum((movement) => feesOf(movement).fees),
    vat: sum((movement) => feesOf(movement).vat),
    adjust: signedAmount(signedCents(stated.adjust), currency),
    net: signedAmount(signedCents(stated.net), currency),
    deposit_currency: stated.deposit_currency,
    deposit_amount: stated.deposit_amount,
  };
}

/** The stated payout must be what its movements add up to, with the adjustment; and carry as many as it says. */
function checkTotal(remittance: Remittance): SettlementMismatch | undefined {
  const { currency, movements, stated } = remittance;
  const added = movements.reduce(
    (total, movement) => total + signedCents(movement.net),
    signedCents(stated.adjust),
  );
  if (added === signedCents(stated.net) && stated.count === movements.length) return undefined;
  return {
    kind: "total_differs",
    line: "remittance",
    remittance_date: remittance.date,
    currency,
    gateway_amount: signedAmount(signedCents(stated.net), currency),
    ledger_amount: signedAmount(added, currency),
    at: remittance.date,
  };
}

/**
 * Ledger lines that succeeded here on `day` (the gateway's calendar) and no remittance paid out since: by now every
 * one should have been. Free charges never reached the gateway.
 */
async function unsettledLines(day: string, deps: SettlementDeps): Promise<SettlementMismatch[]> {
  const { calendar } = deps;
  const end = new Date(calendar.dayStart(calendar.shift(day, 1)).getTime() - 1);
  const mismatches: SettlementMismatch[] = [];
  for await (const page of deps.ledger.listLedger(calendar.dayStart(day), end)) {
    const lines = page.filter((entry) => entry.kind !== "charge" || !isFreeCharge(entry.attempt));
    const keys = lines.flatMap((entry) => {
      const transaction_id = transactionOf(entry);
      const line = entry.kind === "charge" ? entry.attempt : entry.refund;
      return transaction_id === undefined ? [] : [{ subscription_id: line.subscription_id, transaction_id }];
    });
    const settled = await deps.settlementStore.settledTransactions(keys);
    for (const entry of lines) {
      const transactionId = transactionOf(entry);
      if (transactionId !== undefined && settled.has(transactionId)) continue;
      const line = entry.kind === "charge" ? entry.attempt : entry.refund;
      mismatches.push({
        kind: "unsettled",
        line: entry.kind,
        currency: line.currency,
        order_id: line.order_id,
        transaction_id: transactionId,
        ...(entry.kind === "refund" ? { refund_id: entry.refund.refund_id } : {}),
        ledger_amount: line.amount,
        ledger_status: line.status,
        at: entry.at,
      });
    }
  }
  return mismatches;
}

/**
 * Movements matched and kept side by side, this many at a time (each is a read or two and a write): a day of tens of
 * thousands of movements stays well inside the function's timeout, the table's capacity shared with the day's work.
 */
const MOVEMENTS_AT_ONCE = 16;

/** Whether the gateway can answer a remittance date's settlement yet: from the day after it. */
export const isSettlementAvailable = (date: string, now: Date, calendar: GatewayCalendar) =>
  date < calendar.dayOf(now);

/**
 * Reconciles the remittances paid out on `date` (YYYYMMDD, the gateway's calendar): every movement matched to its
 * ledger line and its settlement kept there, every remittance's total checked, then the ledger lines of the day the
 * delay and its grace reach back to, each of which some remittance must have paid out by now. Keeps the date's
 * payouts. A date the gateway cannot answer yet is a notice.
 */
export async function reconcileSettlements(
  date: string,
  deps: SettlementDeps,
  known?: ReadonlyMap<string, LineRef>,
): Promise<SettlementOutcome> {
  const now = deps.clock.now();
  if (!isSettlementAvailable(date, now, deps.calendar))
    return {
      kind: "reconciled",
      report: {
        payouts: [],
        mismatches: [],
        notices: [`settlements of ${date} are reported from the next day`],
      },
    };
  const answer = await deps.settlements(date);
  if (answer.kind !== "success")
    return { kind: "failed", reason: `settlements of ${date} unavailable: ${failureReason(answer)}` };
  const mismatches: SettlementMismatch[] = [];
  const payouts: Payout[] = [];
  const refs = known ?? (await lineRefs(date, date, deps));
  for (const remittance of answer.value.remittances) {
    const total = checkTotal(remittance);
    if (total) mismatches.push(total);
    for (let start = 0; start < remittance.movements.length; start += MOVEMENTS_AT_ONCE) {
      const batch = remittance.movements.slice(start, start + MOVEMENTS_AT_ONCE);
      const found = await Promise.all(
        batch.map((movement) => settleMovement(remittance, movement, refs, deps)),
      );
      mismatches.push(...found.flat());
    }
    payouts.push(payoutOf(remittance, "settled"));
  }
  const lateDay = deps.calendar.shift(date, -(SETTLEMENT_DELAY_DAYS + SETTLEMENT_GRACE_DAYS));
  mismatches.push(...(await unsettledLines(lateDay, deps)));
  await deps.settlementStore.putPayoutDay({
    remittance_date: date,
    status: "settled",
    payouts,
    mismatches: mismatches.length,
    reconciled_at: now.toISOString(),
  });
  return { kind: "reconciled", report: { payouts, mismatches, notices: answer.value.notices } };
}

/**
 * The gateway's forecast of what it pays out on `date` (available from that day): kept as the date's expected
 * payouts until its settlement is reconciled. Nothing is matched or recorded from a forecast.
 */
export async function forecastSettlements(
  date: string,
  deps: Pick<SettlementDeps, "expectedSettlements" | "settlementStore" | "clock">,
): Promise<SettlementOutcome> {
  const answer = await deps.expectedSettlements(date);
  if (answer.kind !== "success")
    return {
      kind: "failed",
      reason: `expected settlements of ${date} unavailable: ${failureReason(answer)}`,
    };
  const payouts = answer.value.remittances.map((remittance) => payoutOf(remittance, "expected"));
  await deps.settlementStore.putPayoutDay({
    remittance_date: date,
    status: "expected",
    payouts,
    mismatches: 0,
    reconciled_at: deps.clock.now().toISOString(),
  });
  return { kind: "reconciled", report: { payouts, mismatches: [], notices: answer.value.notices } };
}

/**
 * Reconciles the remittances of each day from `from` to `to` in order: a day's late ledger lines are looked for in
 * what the days before it kept.
 */
export async function reconcileSettlementDays(
  period: { readonly from: string; readonly to: string },
  deps: SettlementDeps,
): Promise<SettlementOutcome> {
  const payouts: Payout[] = [];
  const mismatches: SettlementMismatch[] = [];
  const notices: string[] = [];
  // The period's lines are read once: each day's remittances pay out lines of the days before it.
  const refs = await lineRefs(period.from, period.to, deps);
  for (let day = period.from; day <= period.to; day = deps.calendar.shift(day, 1)) {
    const outcome = await reconcileSettlements(day, deps, refs);
    if (outcome.kind === "failed") return outcome;
    payouts.push(...outcome.report.payouts);
    mismatches.push(...outcome.report.mismatches);
    notices.push(...outcome.report.notices);
  }
  return { kind: "reconciled", report: { payouts, mismatches, notices: [...new Set(notices)] } };
}

/**
 * One run of reconcile-ledger: the period's transactions against the ledger (reconciliation.ts), then its days'
 * payouts; with `forecast`, today's expected payouts are kept too (a forecast the gateway cannot give is a notice:
 * it only informs the payouts report).
 */
export async function reconcilePeriod(
  period: { readonly from: string; readonly to: string },
  options: { readonly forecast: boolean },
  deps: ReconciliationDeps & SettlementDeps,
): Promise<
  | { readonly kind: "reconciled"; readonly report: ReconciliationRun }
  | { readonly kind: "failed"; readonly reason: string }
> {
  const compared = await reconcile(period, deps);
  if (compared.kind === "failed") return compared;
  const settled = await reconcileSettlementDays(period, deps);
  if (settled.kind === "failed") return settled;
  const notices = [...compared.report.notices, ...settled.report.notices];
  if (options.forecast) {
    const forecast = await forecastSettlements(deps.calendar.dayOf(deps.clock.now()), deps);
    if (forecast.kind === "failed") notices.push(`expected payouts not kept: ${forecast.reason}`);
  }
  return {
    kind: "reconciled",
    report: {
      ...compared.report,
      payouts: settled.report.payouts,
      settlement_mismatches: settled.report.mismatches,
      notices,
    },
  };
}
