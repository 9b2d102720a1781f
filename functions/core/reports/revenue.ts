import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import type { OutboxEvent, RevenueMovement } from "../base/events";
import type { Subscription } from "../base/model";
import { roundedAmount, signedCents } from "../base/money";
import { monthlyCents, PAYING_STATUSES } from "../base/plan-price";
import type { EventLog, PaidPlan, SubscriptionStore } from "../ports/billing-repository";

// Revenue figures a founder reads each month (README, Revenue report), from what the subscriptions were at each
// instant: the state every logged event carries (the subscription's view after it), and for a subscription with no
// event in the log, its state now. A subscription pays for its plan while it is active or past due; its monthly
// recurring revenue (MRR) is the plan's amount × seats ÷ the months a period lasts, at list price (coupons aside).

/** What a report reads of a subscription at one instant: its status and its plan. */
export const revenueStateSchema = lazySchema(() =>
  z.object({
    subscription_id: z.string(),
    status: z.string(),
    plan: z.object({
      amount: z.string(),
      currency: z.string(),
      interval_months: z.number().int().min(1),
      quantity: z.number().int().min(1).optional(),
    }),
  }),
);
export type RevenueState = z.infer<typeof revenueStateSchema>;

/** A subscription's state from an instant on (the view an event carried when it occurred). */
export interface StateChange {
  readonly at: Date;
  readonly state: RevenueState;
}

const amount = lazySchema(() => z.string());

export const revenueMonthSchema = lazySchema(() =>
  z.object({
    /** YYYY-MM (UTC). */
    month: z.string().regex(/^\d{4}-\d{2}$/),
    currency: z.string(),
    /** At the month's end. */
    mrr: amount,
    /** From subscriptions that paid nothing before (their first month of MRR). */
    new: amount,
    /** More MRR from a subscription that paid at the month's start, or that came back (a resume, a reactivation). */
    expansion: amount,
    /** Less MRR from a subscription still there at the month's end (fewer seats, a cheaper plan, a pause). */
    contraction: amount,
    /** The MRR, at the month's start, of subscriptions canceled in it. */
    churned: amount,
    /** Subscriptions paying at the month's end. */
    active: z.number().int().min(0),
    /** Subscriptions canceled in the month ÷ those paying at its start (0 when none were). */
    churn_rate: z.number().min(0).max(1),
  }),
);
export type RevenueMonth = z.infer<typeof revenueMonthSchema>;

/** What `npx billing report revenue --json` prints. */
export const revenueReportSchema = lazySchema(() => z.object({ months: z.array(revenueMonthSchema) }));

/** A state's MRR in hundredths of its currency (a fraction when a period lasts several months). */
const mrrOf = (state: RevenueState | undefined): number =>
  state === undefined || !PAYING_STATUSES.has(state.status) ? 0 : monthlyCents(state.plan);

/** The first instant of each UTC month from `from`'s to `to`'s, and of the month after. */
function monthStarts(from: Date, to: Date): Date[] {
  const starts: Date[] = [];
  for (
    let year = from.getUTCFullYear(), month = from.getUTCMonth();
    Date.UTC(year, month) <= to.getTime();
    month += 1
  )
    starts.push(new Date(Date.UTC(year, month)));
  const last = starts.at(-1) ?? from;
  starts.push(new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1)));
  return starts;
}

/** A subscription's state at `at`: its last change at or before it, else (none yet) nothing. */
function stateAt(changes: readonly StateChange[], at: Date): RevenueState | undefined {
  let state: RevenueState | undefined;
  for (const change of changes) {
    if (change.at.getTime() >= at.getTime()) break;
    state = change.state;
  }
  return state;
}

interface Totals {
  mrr: number;
  new: number;
  expansion: number;
  contraction: number;
  churned: number;
  active: number;
  startCount: number;
  churnedCount: number;
}

/**
 * The months from `from`'s to `to`'s (UTC), per currency: each subscription's changes in the order they happened,
 * compared at each month's start and end. Movements add up: MRR at the end = MRR at the start + new + expansion −
 * contraction − churned.
 */
export function revenueByMonth(
  history: ReadonlyMap<string, readonly StateChange[]>,
  from: Date,
  to: Date,
): RevenueMonth[] {
  const starts = monthStarts(from, to);
  const months: RevenueMonth[] = [];
  for (let index = 0; index + 1 < starts.length; index += 1) {
    const start = starts[index] as Date;
    const end = starts[index + 1] as Date;
    const byCurrency = new Map<string, Totals>();
    const totalsOf = (currency: string) => {
      let totals = byCurrency.get(currency);
      if (totals === undefined) {
        totals = {
          mrr: 0,
          new: 0,
          expansion: 0,
          contraction: 0,
          churned: 0,
          active: 0,
          startCount: 0,
          churnedCount: 0,
        };
        byCurrency.set(currency, totals);
      }
      return totals;
    };
    for (const changes of history.values()) {
      const before = stateAt(changes, start);
      const after = stateAt(changes, end);
      const paidBefore = changes.some((change) => change.at < start && mrrOf(change.state) > 0);
      const currencies = new Set(
        [before?.plan.currency, after?.plan.currency].filter((c) => c !== undefined),
      );
      for (const currency of currencies) {
        const was = before?.plan.currency === currency ? mrrOf(before) : 0;
        const is = after?.plan.currency === currency ? mrrOf(after) : 0;
        const totals = totalsOf(currency);
        totals.mrr += is;
        if (is > 0) totals.active += 1;
        if (was > 0) totals.startCount += 1;
        if (was === 0 && is > 0) {
          if (paidBefore) totals.expansion += is;
          else totals.new += is;
        } else if (was > 0 && is === 0) {
          if (after?.status === "canceled") {
            totals.churned += was;
            totals.churnedCount += 1;
          } else totals.contraction += was;
        } else if (is > was) totals.expansion += is - was;
        else if (is < was) totals.contraction += was - is;
      }
    }
    const month = start.toISOString().slice(0, 7);
    for (const [currency, totals] of [...byCurrency].sort(([a], [b]) => a.localeCompare(b))) {
      if (totals.mrr === 0 && totals.startCount === 0) continue;
      months.push({
        month,
        currency,
        mrr: roundedAmount(totals.mrr, currency),
        new: roundedAmount(totals.new, currency),
        expansion: roundedAmount(totals.expansion, currency),
        contraction: roundedAmount(totals.contraction, currency),
        churned: roundedAmount(totals.churned, currency),
        active: totals.active,
        churn_rate:
          totals.startCount === 0
            ? 0
            : Math.round((totals.churnedCount / totals.startCount) * 10_000) / 10_000,
      });
    }
  }
  return months;
}

/**
 * Each subscription's changes, oldest first, from logged events (each carries the subscription's view after it) and
 * the subscriptions as stored now: one the log holds nothing of has been as it is now since it was created.
 */
export function historyOf(
  events: Iterable<{
    readonly occurred_at: string;
    readonly sequence?: number;
    readonly subscription?: unknown;
  }>,
  current: Iterable<RevenueState & { readonly created_at: string }>,
): Map<string, StateChange[]> {
  const history = new Map<string, { at: Date; sequence: number; state: RevenueState }[]>();
  for (const event of events) {
    const state = revenueStateSchema.safeParse(event.subscription);
    if (!state.success) continue;
    const changes = history.get(state.data.subscription_id) ?? [];
    changes.push({ at: new Date(event.occurred_at), sequence: event.sequence ?? 0, state: state.data });
    history.set(state.data.subscription_id, changes);
  }
  for (const subscription of current) {
    if (history.has(subscription.subscription_id)) continue;
    const state = revenueStateSchema.parse(subscription);
    history.set(subscription.subscription_id, [
      { at: new Date(subscription.created_at), sequence: 0, state },
    ]);
  }
  for (const changes of history.values())
    changes.sort((a, b) => a.at.getTime() - b.at.getTime() || a.sequence - b.sequence);
  return history;
}

const DAY_MS = 86_400_000;
/** Subscriptions read per page of the listing. */
const SUBSCRIPTION_PAGE = 500;

/**
 * The revenue figures of the months from `from`'s to `to`'s, read from the event log (every event it keeps from
 * `retentionDays` before the last month's end on) and the subscriptions as stored now.
 */
export async function revenueReport(
  repository: Pick<EventLog, "readEventLog"> & Pick<SubscriptionStore, "listSubscriptions">,
  range: { readonly from: Date; readonly to: Date; readonly retentionDays: number },
): Promise<RevenueMonth[]> {
  const { from, to, retentionDays } = range;
  const end = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth() + 1));
  const subscriptions: Subscription[] = [];
  let cursor: string | undefined;
  do {
    const page = await repository.listSubscriptions({}, { limit: SUBSCRIPTION_PAGE, cursor });
    subscriptions.push(...page.subscriptions);
    cursor = page.cursor;
  } while (cursor !== undefined);
  // No event is older than the log's retention or than the oldest subscription.
  const oldest = subscriptions.reduce(
    (earliest, each) => Math.min(earliest, Date.parse(each.created_at)),
    end.getTime(),
  );
  const since = new Date(Math.max(end.getTime() - retentionDays * DAY_MS, oldest));
  const events: OutboxEvent[] = [];
  for await (const page of repository.readEventLog({ from: since, to: end })) events.push(...page);
  return revenueByMonth(historyOf(events, subscriptions), from, to);
}

export const revenueNowSchema = lazySchema(() =>
  z.object({
    currency: z.string(),
    /** The paying subscriptions' MRR now. */
    mrr: amount,
    /** Subscriptions paying now (active or past due). */
    active: z.number().int().min(0),
  }),
);
export type RevenueNow = z.infer<typeof revenueNowSchema>;

/** MRR and paying subscriptions per currency now (the dashboard's daily figures), from the plans being paid. */
export async function revenueNow(plans: AsyncIterable<readonly PaidPlan[]>): Promise<RevenueNow[]> {
  const totals = new Map<string, { cents: number; active: number }>();
  for await (const page of plans) {
    for (const plan of page) {
      const total = totals.get(plan.currency) ?? { cents: 0, active: 0 };
      total.cents += monthlyCents(plan);
      total.active += 1;
      totals.set(plan.currency, total);
    }
  }
  return [...totals]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, { cents, active }]) => ({ currency, mrr: roundedAmount(cents, currency), active }));
}

export type MovementKind = RevenueMovement["kind"];

/** What movements of one currency did to the MRR: new + expansion − contraction − churned. */
export const netMovement = (byKind: ReadonlyMap<MovementKind, number>): number =>
  (byKind.get("new") ?? 0) +
  (byKind.get("expansion") ?? 0) -
  (byKind.get("contraction") ?? 0) -
  (byKind.get("churned") ?? 0);

/** The MRR movements some events carry, summed per currency and kind, in the currency's units. */
export function movementTotals(
  events: Iterable<{ readonly mrr_movements?: readonly RevenueMovement[] }>,
): Map<string, Map<MovementKind, number>> {
  const totals = new Map<string, Map<MovementKind, number>>();
  for (const event of events) {
    for (const { currency, kind, amount } of event.mrr_movements ?? []) {
      const byKind = totals.get(currency) ?? new Map<MovementKind, number>();
      byKind.set(kind, (byKind.get(kind) ?? 0) + signedCents(amount));
      totals.set(currency, byKind);
    }
  }
  for (const byKind of totals.values()) for (const [kind, cents] of byKind) byKind.set(kind, cents / 100);
  return totals;
}
