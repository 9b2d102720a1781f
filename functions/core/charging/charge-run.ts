import type { SubscriptionStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { ChargeQueue } from "../ports/queues";

export interface ChargeRunDeps {
  /** Only the due index: the run reads nothing else. */
  readonly repository: SubscriptionStore;
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
  // The next page is read while the current one is sent; at most one send is in flight, so a failing send still
  // stops the run before anything else is sent.
  let sending: Promise<void> = Promise.resolve();
  for await (const page of deps.repository.listDue(deps.clock.now())) {
    await sending;
    const messages = page.map(({ subscription_id, period }) => ({ subscription_id, period }));
    sending = deps.queue.send(messages).then(() => {
      enqueued += messages.length;
      pages += 1;
      onProgress?.({ enqueued, pages });
    });
    // Handled here so that a failure surfaces at the next await rather than as an unhandled rejection.
    sending.catch(() => undefined);
  }
  await sending;
  return { enqueued, pages };
}
