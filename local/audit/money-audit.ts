import * as z from "zod";
import { isAdHocPeriod } from "../../functions/core/base/charge-kind";
import {
  addedTaxCents,
  type BillingDocument,
  type CreditNote,
  type Invoice,
} from "../../functions/core/base/documents";
import type { OutboxEvent } from "../../functions/core/base/events";
import {
  type ChargeAttempt,
  OPEN_REFUND_STATUSES,
  type RefundRecord,
  type Subscription,
} from "../../functions/core/base/model";
import { toCents } from "../../functions/core/base/money";
import { planTotal } from "../../functions/core/base/plan-price";
import type { DocumentPage } from "../../functions/core/ports/document-store";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { RefundRecord as GatewayRefund } from "../../sandbox/state/payment-store";
import type { BillingStack } from "../stack/billing-stack";
import { auditDocuments } from "./document-audit";

// The money audit of the chaos run (README, Proof under fire): beyond "each period sold once", every movement of money
// — sales and refunds of every kind — as the gateway made it against the ledger, line for line.

export interface MoneyAudit {
  /** Gateway refunds of our charges and our refund records: each made refund succeeded here with its amount, and back. */
  readonly refundMismatches: readonly string[];
  /** Refunds still pending or unknown at the end. */
  readonly openRefunds: readonly string[];
  /** A gateway transaction credited to more than one ledger line. */
  readonly transactionsCreditedTwice: readonly string[];
  /**
   * A canceled subscription's sale kept for a period it never reached (unless the gateway refused its refund: that is
   * announced as refund.failed, for support).
   */
  readonly salesKeptAfterCancel: readonly string[];
  /**
   * A proration kept without the plan change it paid for: still pending, more kept than upgrades applied, or more
   * money kept in prorations than the applied upgrades' differences come to over a whole period (unless the gateway
   * refused its refund).
   */
  readonly prorationMismatches: readonly string[];
  /**
   * A plan credit given without the decrease it credits: still pending, more given than decreases applied or than
   * their differences come to over a whole period, or one more than the whole period's difference.
   */
  readonly creditMismatches: readonly string[];
  /**
   * A paid charge or succeeded refund without its invoice or credit note (or one for another amount), a document of
   * nothing paid, a number skipped or given twice (document-audit.ts).
   */
  readonly documentMismatches: readonly string[];
  /** What was audited. */
  readonly refunds: number;
  readonly prorations: number;
  readonly credits: number;
  readonly invoices: number;
  readonly creditNotes: number;
  /** Invoices and credit notes with a tax added on top. */
  readonly taxedDocuments: number;
}

export interface MoneyRecords {
  readonly subscriptions: readonly Subscription[];
  readonly attempts: readonly ChargeAttempt[];
  readonly refunds: readonly RefundRecord[];
  /** The gateway's refunds (all of the merchant's: those of other orders are left out). */
  readonly gatewayRefunds: Iterable<Pick<GatewayRefund, "refundId" | "orderId" | "amount">>;
  /** The events delivered, to count applied plan changes. */
  readonly events: readonly OutboxEvent[];
  /** Every finalized invoice and credit note. */
  readonly invoices: readonly Invoice[];
  readonly creditNotes: readonly CreditNote[];
}

const cents = (amount: string | undefined) => toCents(amount ?? "0");

/** A refund refused here because the balance no longer had its amount (never sent to the gateway). */
const SHORT_OF_BALANCE = "BALANCE";

export function auditMoney(records: MoneyRecords): MoneyAudit {
  const orders = new Set(records.attempts.map((line) => line.order_id));
  const ours = new Map(records.refunds.map((refund) => [refund.refund_id, refund]));
  const made = [...records.gatewayRefunds].filter((refund) => orders.has(refund.orderId));
  const refundMismatches: string[] = [];
  for (const refund of made) {
    const record = ours.get(refund.refundId);
    if (record?.status !== "succeeded" || cents(record.amount) !== cents(refund.amount))
      refundMismatches.push(
        `${refund.refundId}: refunded ${refund.amount} at the gateway, ${record?.status ?? "absent"} here`,
      );
  }
  const madeIds = new Set(made.map((refund) => refund.refundId));
  for (const record of records.refunds)
    if (record.status === "succeeded" && !madeIds.has(record.refund_id))
      refundMismatches.push(`${record.refund_id}: succeeded here, no refund at the gateway`);
  // Every line's refunded amount is what its refunds came to: none is left held.
  const refundedByOrder = new Map<string, number>();
  for (const record of records.refunds)
    if (record.status === "succeeded")
      refundedByOrder.set(
        record.order_id,
        (refundedByOrder.get(record.order_id) ?? 0) + cents(record.amount),
      );
  for (const line of records.attempts)
    if (cents(line.refunded_amount) !== (refundedByOrder.get(line.order_id) ?? 0))
      refundMismatches.push(
        `${line.order_id}: refunded ${line.refunded_amount ?? "0"} on the line, its refunds say otherwise`,
      );

  const byTransaction = new Map<string, string[]>();
  for (const line of records.attempts)
    if (line.transaction_id !== undefined)
      byTransaction.set(line.transaction_id, [
        ...(byTransaction.get(line.transaction_id) ?? []),
        line.order_id,
      ]);

  const subscriptions = new Map(
    records.subscriptions.map((subscription) => [subscription.subscription_id, subscription]),
  );
  const kept = (line: ChargeAttempt) =>
    line.status === "succeeded" && cents(line.refunded_amount) < cents(line.amount);
  const refusedByGateway = new Set(
    records.refunds
      .filter((refund) => refund.status === "failed" && refund.rescode !== SHORT_OF_BALANCE)
      .map((refund) => refund.order_id),
  );
  const salesKeptAfterCancel = records.attempts
    .filter((line) => {
      const subscription = subscriptions.get(line.subscription_id);
      return (
        subscription?.status === "canceled" &&
        !isAdHocPeriod(line.period) &&
        line.period >= subscription.period &&
        kept(line) &&
        !refusedByGateway.has(line.order_id)
      );
    })
    .map((line) => `${line.order_id}: kept, its subscription canceled before period ${line.period}`);

  const prorations = records.attempts.filter((line) => line.purpose === "proration");
  const keptProrations = prorations.filter((line) => kept(line) && !refusedByGateway.has(line.order_id));
  const prorationMismatches = [
    ...keptProrations
      .filter((line) => subscriptions.get(line.subscription_id)?.pending_plan_order === line.order_id)
      .map((line) => `${line.order_id}: paid, its plan change still pending`),
    ...beyondChanges(
      keptProrations.map((line) => ({ subscription_id: line.subscription_id, cents: cents(line.amount) })),
      appliedChanges(records.events, 1, subscriptions),
      { lines: "prorations kept", changes: "upgrades" },
    ),
  ];

  const credits = records.refunds.filter((refund) => refund.prorated_from !== undefined);
  const given = credits.filter((refund) => refund.status === "succeeded");
  const creditMismatches = [
    ...records.subscriptions
      .filter((subscription) => subscription.pending_credit !== undefined)
      .map((subscription) => `${subscription.subscription_id}: a plan credit never sent`),
    ...given
      .filter((refund) => cents(refund.amount) > cents(refund.prorated_from))
      .map((refund) => `${refund.refund_id}: gave back more than the difference of a whole period`),
    ...beyondChanges(
      given.map((refund) => ({ subscription_id: refund.subscription_id, cents: cents(refund.amount) })),
      appliedChanges(records.events, -1, subscriptions),
      { lines: "credits given", changes: "decreases" },
    ),
  ];

  return {
    refundMismatches,
    openRefunds: records.refunds
      .filter((refund) => OPEN_REFUND_STATUSES.includes(refund.status))
      .map((refund) => `${refund.refund_id}: ${refund.status}`),
    transactionsCreditedTwice: [...byTransaction]
      .filter(([, lines]) => lines.length > 1)
      .map(([transaction, lines]) => `${transaction}: ${lines.join(", ")}`),
    salesKeptAfterCancel,
    prorationMismatches,
    creditMismatches,
    documentMismatches: auditDocuments(records),
    refunds: records.refunds.length,
    prorations: prorations.length,
    credits: credits.length,
    invoices: records.invoices.length,
    creditNotes: records.creditNotes.length,
    taxedDocuments: [...records.invoices, ...records.creditNotes].filter((document) =>
      document.tax.some((line) => !line.inclusive),
    ).length,
  };
}

/** The audit of a stack's subscriptions: their ledger, their refunds, the gateway's refunds and the bus's events. */
export async function auditStackMoney(
  stack: BillingStack,
  ids: readonly string[],
  events: readonly OutboxEvent[],
): Promise<MoneyAudit> {
  const { repository } = stack.services;
  const read = await mapConcurrently(ids, 8, async (id) => ({
    subscription: await repository.getSubscription(id),
    attempts: await repository.listAttempts(id),
    refunds: await repository.listRefunds(id),
  }));
  return auditMoney({
    subscriptions: read.flatMap(({ subscription }) => (subscription ? [subscription] : [])),
    attempts: read.flatMap(({ attempts }) => attempts),
    refunds: read.flatMap(({ refunds }) => refunds),
    gatewayRefunds: stack.sandbox.state.payments.refunds(),
    events,
    invoices: await everyDocument((page) => repository.listInvoices({}, page)),
    creditNotes: await everyDocument((page) => repository.listCreditNotes({}, page)),
  });
}

/** Every page of a listing. */
async function everyDocument<D extends BillingDocument>(
  list: (page: { readonly limit: number; readonly cursor?: string }) => Promise<DocumentPage<D>>,
): Promise<D[]> {
  const documents: D[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: 100, cursor });
    documents.push(...page.documents);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return documents;
}

/**
 * A subscription's plan totals (unit amount × seats) as its events announce them, in sequence: the sign-up's (when its
 * event is among them), then each applied change of the plan or its seats.
 */
export interface PlanHistory {
  readonly signedUp: boolean;
  readonly amounts: readonly string[];
}

/** Each subscription's plan history from delivered events (each event once, however many copies the bus holds). */
export function planHistories(events: readonly OutboxEvent[]): Map<string, PlanHistory> {
  const plans = new Map<string, { sequence: number; amount: string }[]>();
  const signedUp = new Set<string>();
  const seen = new Set<string>();
  for (const event of events) {
    if (seen.has(event.event_id)) continue;
    seen.add(event.event_id);
    const amount =
      event.type === "subscription.created"
        ? planTotalOf(event.plan)
        : event.type === "subscription.updated" &&
            (event.changed.includes("plan") || event.changed.includes("quantity"))
          ? planTotalOf(event.subscription?.plan)
          : undefined;
    if (amount === undefined) continue;
    if (event.type === "subscription.created") signedUp.add(event.subscription_id);
    const list = plans.get(event.subscription_id) ?? [];
    list.push({ sequence: event.sequence ?? 0, amount });
    plans.set(event.subscription_id, list);
  }
  return new Map(
    [...plans].map(([id, list]) => [
      id,
      {
        signedUp: signedUp.has(id),
        amounts: list.sort((a, b) => a.sequence - b.sequence).map((plan) => plan.amount),
      },
    ]),
  );
}

/**
 * The plan changes each subscription announced in one direction: how many, and their differences summed in cents —
 * each plan's period total with the subscription's tax added on top, as its charges are.
 */
function appliedChanges(
  events: readonly OutboxEvent[],
  direction: 1 | -1,
  subscriptions: ReadonlyMap<string, Subscription>,
): Map<string, { count: number; cents: number }> {
  const changes = new Map<string, { count: number; cents: number }>();
  for (const [id, history] of planHistories(events)) {
    const subscription = subscriptions.get(id);
    const rate = subscription?.tax_rate;
    const amounts = history.amounts.map((amount) =>
      rate === undefined || subscription === undefined
        ? cents(amount)
        : cents(amount) + addedTaxCents(cents(amount), subscription.plan.currency, rate),
    );
    // A subscription written without its sign-up's event (a test's fixture) starts from a plan not known here: its
    // first change may be one of any size.
    const moves = [
      ...(history.signedUp ? [] : [Number.POSITIVE_INFINITY]),
      ...amounts.slice(1).map((amount, index) => direction * (amount - (amounts[index] ?? amount))),
    ];
    const made = moves.filter((move) => move > 0);
    changes.set(id, { count: made.length, cents: made.reduce((sum, move) => sum + move, 0) });
  }
  return changes;
}

/** Money kept (prorations) or given back (credits) against the plan changes that justify it, per subscription. */
function beyondChanges(
  lines: readonly { readonly subscription_id: string; readonly cents: number }[],
  applied: Map<string, { count: number; cents: number }>,
  what: { readonly lines: string; readonly changes: string },
): string[] {
  const bySubscription = new Map<string, { count: number; cents: number }>();
  for (const line of lines) {
    const sum = bySubscription.get(line.subscription_id) ?? { count: 0, cents: 0 };
    bySubscription.set(line.subscription_id, { count: sum.count + 1, cents: sum.cents + line.cents });
  }
  return [...bySubscription]
    .filter(([id, sum]) => {
      const made = applied.get(id) ?? { count: 0, cents: 0 };
      return sum.count > made.count || sum.cents > made.cents;
    })
    .map(([id, sum]) => {
      const made = applied.get(id) ?? { count: 0, cents: 0 };
      return `${id}: ${sum.count} ${what.lines} (${sum.cents} cents), ${made.count} ${what.changes} applied (${made.cents} cents a period)`;
    });
}

const planShape = z.looseObject({
  amount: z.string(),
  currency: z.string(),
  quantity: z.number().optional(),
});

/** A plan's period total, from a view or an event as delivered (undefined when it carries none). */
function planTotalOf(plan: unknown): string | undefined {
  const parsed = planShape.safeParse(plan);
  return parsed.success ? planTotal(parsed.data) : undefined;
}
