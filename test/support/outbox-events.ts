import type { OutboxEvent } from "../../functions/core/base/events";
import type { OutboxStore } from "../../functions/core/ports/billing-repository";
import { pendingOutboxContents } from "../../local/lambda/pending-outboxes";

/**
 * Every event the repository's outboxes still hold (none is delivered in these tests), oldest first: one outbox's
 * events in their written order, outboxes by when their events occurred.
 */
export async function pendingEvents(repository: OutboxStore): Promise<OutboxEvent[]> {
  const contents = await pendingOutboxContents(repository);
  return contents
    .flatMap(({ events }) => events)
    .sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
}
