import { isAdHocPeriod } from "../base/charge-kind";
import type { ChargeAttempt } from "../base/model";
import { type ChargeDeps, resolveAttempt, settleProrationOf } from "../charging/charge-engine";
import { expireCheckout } from "../lifecycle/checkout";
import type { ChargeQueue } from "../ports/queues";
import { sendPendingCredit } from "../refunds/plan-credit";
import { settleOpenRefund } from "../refunds/refunds";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How long retrieve is left alone after it could not settle an attempt: 5 min, then hourly after an hour, then daily. */
export function sweepDelayMs(attemptAgeMs: number): number {
  if (attemptAgeMs < HOUR_MS) return 5 * MINUTE_MS;
  return attemptAgeMs < DAY_MS ? HOUR_MS : DAY_MS;
}

async function postpone(attempt: ChargeAttempt, deps: AttemptSweepDeps): Promise<void> {
  const now = deps.clock.now();
  const delay = sweepDelayMs(now.getTime() - Date.parse(attempt.created_at));
  await deps.repository.updateAttempt(attempt, {
    expect: { status: attempt.status, lease_until: attempt.lease_until },
    set: { lease_until: new Date(now.getTime() + delay).toISOString(), updated_at: now.toISOString() },
  });
}

export interface AttemptSweepDeps extends ChargeDeps {
  readonly queue: ChargeQueue;
}

/** An item the sweep could not settle: which one, and why (an error's message, never a card field). */
export interface SweepItemFailure {
  /** The order_id of an attempt, or the refund_id of a refund. */
  readonly id: string;
  readonly error: string;
}

export interface AttemptSweepReport {
  readonly examined: number;
  /** Settled by retrieve. */
  readonly resolved: number;
  /** Left open: retrieve could not tell yet (gateway unavailable); the next sweep tries again. */
  readonly deferred: number;
  /** Handed back to the charge queue (voided attempts and attempts waiting for a retry whose message was lost). */
  readonly requeued: number;
  /**
   * Checkouts still pending past their end: closed as expired, or left for the next sweep (their try's line not yet
   * settled by retrieve).
   */
  readonly checkouts: { readonly examined: number; readonly expired: number; readonly deferred: number };
  /** Plan credits left pending past their lease (their request died after the plan changed): sent now. */
  readonly credits: { readonly examined: number; readonly sent: number };
  /** Refunds left open past their lease: settled (closed), or left for the next sweep. */
  readonly refunds: { readonly examined: number; readonly settled: number; readonly deferred: number };
  /** Items whose settling threw: each left as it was for the next sweep, the others settled regardless. */
  readonly failed: readonly SweepItemFailure[];
  /** Attempts and refunds still open OVERDUE_AFTER_MS after they were made, by id: a person must look at them. */
  readonly overdue: readonly string[];
}

/**
 * How long an attempt or refund may stay open before a person is told: by then the sweep has tried it every 5 minutes,
 * then hourly, and now tries daily.
 */
export const OVERDUE_AFTER_MS = DAY_MS;

/** Whether an open item made at `createdAt` has been open past OVERDUE_AFTER_MS at `now`. */
export const isOverdue = (createdAt: string, now: Date) =>
  now.getTime() - Date.parse(createdAt) > OVERDUE_AFTER_MS;

/**
 * Sweeps attempts and refunds left open past their lease — a worker crashed between claim and commit, or an unknown outcome was
 * never resolved — and settles each through retrieve by order_id. Work that needs a new gateway call goes back to the
 * charge queue, so the attempt sweep never charges anything itself. An ad hoc line is only settled: a voided one
 * stays voided (its request was answered; the merchant charges again if they want to), and none is ever queued.
 * Then checkouts still pending past their end are closed as expired, after the attempts, so a window's line settled by
 * retrieve in this sweep lets its checkout close in the same one. Each item is settled on its own: one that throws is
 * reported by id and left for the next sweep, never holding back the items after it.
 */
export async function runAttemptSweep(deps: AttemptSweepDeps): Promise<AttemptSweepReport> {
  const counts = { examined: 0, resolved: 0, requeued: 0, deferred: 0 };
  const failed: SweepItemFailure[] = [];
  const overdue: string[] = [];
  for await (const page of deps.repository.listOpenAttempts(deps.clock.now())) {
    for (const attempt of page) {
      counts.examined += 1;
      const outcome = await settledAlone(attempt.order_id, () => sweepAttempt(attempt, deps), failed);
      if (outcome !== undefined) counts[outcome] += 1;
      const stillOpen = outcome === undefined || outcome === "deferred";
      if (stillOpen && isOverdue(attempt.created_at, deps.clock.now())) overdue.push(attempt.order_id);
    }
  }
  const checkouts = await expireCheckouts(deps, failed);
  const credits = await sendPendingCredits(deps, failed);
  const refunds = await settleOpenRefunds(deps, failed, overdue);
  return { ...counts, checkouts, credits, refunds, failed, overdue };
}

/** Runs one item's settling; a throw is recorded against its id instead of ending the sweep. */
async function settledAlone<T>(
  id: string,
  settle: () => Promise<T>,
  failed: SweepItemFailure[],
): Promise<T | undefined> {
  try {
    return await settle();
  } catch (error) {
    failed.push({ id, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/** What the sweep made of one open attempt; undefined when its subscription is gone. */
async function sweepAttempt(
  attempt: ChargeAttempt,
  deps: AttemptSweepDeps,
): Promise<"resolved" | "requeued" | "deferred" | undefined> {
  const subscription = await deps.repository.getSubscription(attempt.subscription_id);
  if (!subscription) return undefined;
  const message = { subscription_id: attempt.subscription_id, period: attempt.period };
  const adHoc = isAdHocPeriod(attempt.period);
  if (attempt.status === "retry" && !adHoc) {
    await deps.queue.send([message]);
    return "requeued";
  }
  const resolution = await resolveAttempt(subscription, attempt, 1, deps);
  if (resolution.kind === "voided" && adHoc) {
    // Nothing was charged: a proration's plan change is dropped.
    if (attempt.purpose === "proration") await settleProrationOf({ ...attempt, status: "voided" }, deps);
    return "resolved";
  }
  if (resolution.kind === "voided") {
    await deps.queue.send([message]);
    return "requeued";
  }
  if (resolution.result.kind === "done") return "resolved";
  await postpone(attempt, deps);
  return "deferred";
}

/**
 * Checkouts still pending past their end (from the open index), each closed on its own (checkout.ts: expireCheckout);
 * one left open stays because its try's line is, which the attempts above report when overdue.
 */
async function expireCheckouts(
  deps: AttemptSweepDeps,
  failed: SweepItemFailure[],
): Promise<AttemptSweepReport["checkouts"]> {
  const report = { examined: 0, expired: 0, deferred: 0 };
  for await (const page of deps.repository.listExpiredCheckouts(deps.clock.now())) {
    for (const { subscription_id: id } of page) {
      report.examined += 1;
      const expiry = await settledAlone(id, () => expireCheckout(id, deps), failed);
      if (expiry === "expired" || expiry === "deferred") report[expiry] += 1;
    }
  }
  return report;
}

/**
 * Plan credits still pending past their lease (from the open index, which lags the table: each is read again), each
 * sent on its own as its refund (plan-credit.ts), which the refunds below then settle like any other.
 */
async function sendPendingCredits(
  deps: AttemptSweepDeps,
  failed: SweepItemFailure[],
): Promise<AttemptSweepReport["credits"]> {
  const report = { examined: 0, sent: 0 };
  const now = deps.clock.now();
  for await (const page of deps.repository.listPendingCredits(now)) {
    for (const { subscription_id: id } of page) {
      report.examined += 1;
      const sent = await settledAlone(
        id,
        async () => {
          const subscription = await deps.repository.getSubscription(id);
          const lease = subscription?.pending_credit?.lease_until;
          if (subscription === undefined || lease === undefined || Date.parse(lease) > now.getTime())
            return false;
          return (await sendPendingCredit(subscription, deps)) !== undefined;
        },
        failed,
      );
      if (sent) report.sent += 1;
    }
  }
  return report;
}

/** Refunds left open past their lease, each settled by retrieve on its refund_id (refunds.ts), each on its own. */
async function settleOpenRefunds(
  deps: AttemptSweepDeps,
  failed: SweepItemFailure[],
  overdue: string[],
): Promise<AttemptSweepReport["refunds"]> {
  const report = { examined: 0, settled: 0, deferred: 0 };
  for await (const page of deps.repository.listOpenRefunds(deps.clock.now())) {
    for (const refund of page) {
      report.examined += 1;
      const settlement = await settledAlone(refund.refund_id, () => settleOpenRefund(refund, deps), failed);
      if (settlement === "settled") report.settled += 1;
      if (settlement === "deferred") report.deferred += 1;
      const stillOpen = settlement === undefined || settlement === "deferred";
      if (stillOpen && isOverdue(refund.created_at, deps.clock.now())) overdue.push(refund.refund_id);
    }
  }
  return report;
}
