import type { OutboxEvent } from "../functions/core/base/events";
import { EVERY_OUTBOX } from "../functions/core/delivery/event-delivery";
import type { BillingRepository, OutboxRef } from "../functions/core/ports/ports";

/** Every outbox that still holds events, whenever they occurred. */
export async function pendingOutboxes(
  repository: Pick<BillingRepository, "listPendingOutboxes">,
): Promise<OutboxRef[]> {
  const refs: OutboxRef[] = [];
  for await (const page of repository.listPendingOutboxes(EVERY_OUTBOX)) refs.push(...page);
  return refs;
}

/** The events each pending outbox holds, in their written order. */
export async function pendingOutboxContents(
  repository: Pick<BillingRepository, "listPendingOutboxes" | "readOutbox">,
): Promise<{ readonly ref: OutboxRef; readonly events: readonly OutboxEvent[] }[]> {
  const contents = [];
  for (const ref of await pendingOutboxes(repository))
    contents.push({ ref, events: await repository.readOutbox(ref) });
  return contents.filter(({ events }) => events.length > 0);
}
