import { type ChargeDeps, resolveAttempt } from "./charge-engine";
import type { ChargeQueue } from "./ports";

export interface JanitorDeps extends ChargeDeps {
  readonly queue: ChargeQueue;
}

export interface JanitorReport {
  readonly examined: number;
  /** Settled by retrieve. */
  readonly resolved: number;
  /** Left open: retrieve could not tell yet (gateway unavailable); the next sweep tries again. */
  readonly deferred: number;
  /** Handed back to the charge queue (voided attempts and attempts waiting for a retry whose message was lost). */
  readonly requeued: number;
}

/**
 * Sweeps attempts left open past their lease — a worker crashed between claim and commit, or an unknown outcome was
 * never resolved — and settles each through retrieve by order_id. Work that needs a new gateway call goes back to
 * the charge queue, so the janitor never charges anything itself.
 */
export async function runJanitor(deps: JanitorDeps): Promise<JanitorReport> {
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
      if (attempt.status === "retry") {
        await deps.queue.send([message]);
        requeued += 1;
        continue;
      }
      const resolution = await resolveAttempt(subscription, attempt, 1, deps);
      if (resolution.kind === "voided") {
        await deps.queue.send([message]);
        requeued += 1;
      } else if (resolution.result.kind === "done") {
        resolved += 1;
      } else {
        deferred += 1;
      }
    }
  }
  return { examined, resolved, requeued, deferred };
}
