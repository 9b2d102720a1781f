import { type ChargeDeps, resolveAttempt, settleProrationOf } from "./charge-engine";
import { isAdHocPeriod } from "./charge-kind";
import type { ChargeAttempt } from "./model";
import type { ChargeQueue } from "./ports";
import { settleOpenRefund } from "./refunds";

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

export interface AttemptSweepReport {
  readonly examined: number;
  /** Settled by retrieve. */
  readonly resolved: number;
  /** Left open: retrieve could not tell yet (gateway unavailable); the next sweep tries again. */
  readonly deferred: number;
  /** Handed back to the charge queue (voided attempts and attempts waiting for a retry whose message was lost). */
  readonly requeued: number;
  /** Refunds left open past their lease: settled (closed), or left for the next sweep. */
  readonly refunds: { readonly examined: number; readonly settled: number; readonly deferred: number };
}

/**
 * Sweeps attempts and refunds left open past their lease — a worker crashed between claim and commit, or an unknown outcome was
 * never resolved — and settles each through retrieve by order_id. Work that needs a new gateway call goes back to the
 * charge queue, so the attempt sweep never charges anything itself. An ad hoc line is only settled: a voided one
 * stays voided (its request was answered; the merchant charges again if they want to), and none is ever queued.
 */
export async function runAttemptSweep(deps: AttemptSweepDeps): Promise<AttemptSweepReport> {
  let examined = 0;
  let resolved = 0;
  let requeued = 0;
  let deferred = 0;
  for await (const page of deps.repository.listOpenAttempts(deps.clock.now())) {
    for (const attempt of page) {
      examined += 1;
      const subscription = await deps.repository.getSubscription(attempt.subscription_id);
      if (!subscription) continue;
      const message = { subscription_id: attempt.subscription_id, period: attempt.period };
      const adHoc = isAdHocPeriod(attempt.period);
      if (attempt.status === "retry" && !adHoc) {
        await deps.queue.send([message]);
        requeued += 1;
        continue;
      }
      const resolution = await resolveAttempt(subscription, attempt, 1, deps);
      if (resolution.kind === "voided" && adHoc) {
        // Nothing was charged: a proration's plan change is dropped.
        if (attempt.purpose === "proration") await settleProrationOf({ ...attempt, status: "voided" }, deps);
        resolved += 1;
      } else if (resolution.kind === "voided") {
        await deps.queue.send([message]);
        requeued += 1;
      } else if (resolution.result.kind === "done") {
        resolved += 1;
      } else {
        await postpone(attempt, deps);
        deferred += 1;
      }
    }
  }
  return { examined, resolved, requeued, deferred, refunds: await settleOpenRefunds(deps) };
}

/** Refunds left open past their lease, each settled by retrieve on its refund_id (refunds.ts). */
async function settleOpenRefunds(deps: AttemptSweepDeps): Promise<AttemptSweepReport["refunds"]> {
  const report = { examined: 0, settled: 0, deferred: 0 };
  for await (const page of deps.repository.listOpenRefunds(deps.clock.now())) {
    for (const refund of page) {
      report.examined += 1;
      const settlement = await settleOpenRefund(refund, deps);
      if (settlement === "settled") report.settled += 1;
      if (settlement === "deferred") report.deferred += 1;
    }
  }
  return report;
}
