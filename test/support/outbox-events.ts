import { z } from "zod";
import type { OutboxEvent } from "../../functions/core/events";
import type { BillingRepository } from "../../functions/core/ports";
import { pendingOutboxContents } from "../../local/pending-outboxes";

/**
 * Every event the repository's outboxes still hold (none is delivered in these tests), oldest first: one outbox's
 * events in their written order, outboxes by when their events occurred.
 */
export async function pendingEvents(
  repository: Pick<BillingRepository, "listPendingOutboxes" | "readOutbox">,
): Promise<OutboxEvent[]> {
  const contents = await pendingOutboxContents(repository);
  return contents
    .flatMap(({ events }) => events)
    .sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
}

const planOfView = z.looseObject({ plan: z.object({ amount: z.string() }) });

/** The plan amounts a subscription's events announce as applied, in their sequence: each change moves to the next. */
export function appliedPlans(events: readonly OutboxEvent[], subscriptionId: string): string[] {
  return events
    .filter(
      (event) =>
        event.subscription_id === subscriptionId &&
        event.type === "subscription.updated" &&
        "changed" in event &&
        event.changed.includes("plan"),
    )
    .sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0))
    .map((event) => planOfView.parse(event.subscription).plan.amount);
}
