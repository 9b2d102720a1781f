import { EVERY_OUTBOX } from "../../functions/core/event-delivery";
import type { OutboxEvent } from "../../functions/core/events";
import type { BillingRepository, OutboxRef } from "../../functions/core/ports";

/** Every outbox that still holds events, whenever they occurred. */
export async function pendingOutboxes(
  repository: Pick<BillingRepository, "listPendingOutboxes">,
): Promise<OutboxRef[]> {
  const refs: OutboxRef[] = [];
  for await (const page of repository.listPendingOutboxes(EVERY_OUTBOX)) refs.push(...page);
  return refs;
}

/**
 * Every event the repository's outboxes still hold (none is delivered in these tests), oldest first: one outbox's
 * events in their written order, outboxes by when their events occurred.
 */
export async function pendingEvents(
  repository: Pick<BillingRepository, "listPendingOutboxes" | "readOutbox">,
): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  for (const ref of await pendingOutboxes(repository)) events.push(...(await repository.readOutbox(ref)));
  return events.sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
}
