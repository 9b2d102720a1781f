import type { BillingRepository, ChargeQueue, Clock } from "./ports";

export interface ChargeRunDeps {
  readonly repository: BillingRepository;
  readonly queue: ChargeQueue;
  readonly clock: Clock;
}

export interface ChargeRunReport {
  readonly enqueued: number;
  readonly pages: number;
}

/**
 * The scheduled fan-out: every subscription the due index lists becomes one queue message. Overlapping runs and
 * re-sent messages are harmless: the charge protocol claims each attempt once.
 */
export async function runChargeRun(
  deps: ChargeRunDeps,
  onProgress?: (report: ChargeRunReport) => void,
): Promise<ChargeRunReport> {
  let enqueued = 0;
  let pages = 0;
  for await (const page of deps.repository.listDue(deps.clock.now())) {
    await deps.queue.send(page.map(({ subscription_id, period }) => ({ subscription_id, period })));
    enqueued += page.length;
    pages += 1;
    onProgress?.({ enqueued, pages });
  }
  return { enqueued, pages };
}
