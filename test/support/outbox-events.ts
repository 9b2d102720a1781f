import { EVERY_OUTBOX } from "../../functions/core/event-delivery";
import type { OutboxEvent } from "../../functions/core/events";
import type { BillingRepository } from "../../functions/core/ports";

/**
 * Every event the repository's outboxes still hold (none is delivered in these tests), oldest first: one outbox's
 * events in their written order, outboxes by when their events occurred.
 */
export async function pendingEvents(
  repository: Pick<BillingRepository, "listPendingOutboxes" | "readOutbox">,
): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  for await (const refs of repository.listPendingOutboxes(EVERY_OUTBOX)) {
    for (const ref of refs) events.push(...(await repository.readOutbox(ref)));
  }
  return events.sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
}
