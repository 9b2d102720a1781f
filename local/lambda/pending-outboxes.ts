import type { OutboxEvent } from "../../functions/core/base/events";
import { EVERY_OUTBOX } from "../../functions/core/delivery/event-delivery";
import type { OutboxRef, OutboxStore } from "../../functions/core/ports/billing-repository";

/** Every outbox that still holds events, whenever they occurred. */
export async function pendingOutboxes(repository: OutboxStore): Promise<OutboxRef[]> {
  const refs: OutboxRef[] = [];
  for await (const page of repository.listPendingOutboxes(EVERY_OUTBOX)) refs.push(...page);
  return refs;
}

/** The events each pending outbox holds, in their written order. */
export async function pendingOutboxContents(
  repository: OutboxStore,
): Promise<{ readonly ref: OutboxRef; readonly events: readonly OutboxEvent[] }[]> {
  const contents = [];
  for (const ref of await pendingOutboxes(repository))
    contents.push({ ref, events: await repository.readOutbox(ref) });
  return contents.filter(({ events }) => events.length > 0);
}
