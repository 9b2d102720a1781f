import type { OutboxEvent } from "../base/events";
import type { EventLog, OutboxRef, OutboxStore } from "../ports/billing-repository";
import type { EventPublisher } from "../ports/queues";

// Delivery of the outboxes (README, Events): the events a transition wrote with its state are published to the bus
// at least once, logged for replay, then taken out of their outbox. A crash in between publishes them again
// (consumers de-duplicate on event_id) and logs them again (under the same keys); a bus that fails leaves them in the
// outbox for the next delivery.

export interface EventDeliveryDeps {
  readonly repository: OutboxStore & EventLog;
  readonly events: EventPublisher;
}

/**
 * Publishes events of one outbox, logs them, then marks them delivered. Throws (nothing marked) when the bus fails.
 * `outbox` is the whole outbox as read (the events and any others it held), which marking them compares against.
 */
export async function deliverEvents(
  ref: OutboxRef,
  events: readonly OutboxEvent[],
  deps: EventDeliveryDeps,
  outbox: readonly OutboxEvent[] = events,
): Promise<void> {
  if (events.length === 0) return;
  await deps.events.publish(events);
  await deps.repository.logEvents(events);
  await deps.repository.markDelivered(
    ref,
    events.map((event) => event.event_id),
    outbox,
  );
}

/** A `before` that takes every pending outbox, whenever its events occurred (local delivery, tests). */
export const EVERY_OUTBOX = new Date("9999-12-31T23:59:59.999Z");

export interface OutboxSweepReport {
  /** Outboxes found holding events. */
  readonly outboxes: number;
  readonly delivered: number;
  /** Outboxes whose delivery failed (the bus refused); they stay pending for the next sweep. */
  readonly failed: number;
}

/**
 * Delivers every outbox whose oldest pending event occurred at or before `before`. On AWS the table's stream
 * delivers within seconds, so the scheduled sweep looks only at older outboxes, which the stream could not deliver
 * (README, Events); tests deliver everything. One outbox's failure does not stop the others.
 */
export async function runOutboxSweep(
  deps: EventDeliveryDeps,
  before: Date,
  report: {
    readonly onDelivered?: (events: readonly OutboxEvent[]) => void;
    readonly onFailure?: (ref: OutboxRef, error: unknown) => void;
  } = {},
): Promise<OutboxSweepReport> {
  let outboxes = 0;
  let delivered = 0;
  let failed = 0;
  for await (const refs of deps.repository.listPendingOutboxes(before)) {
    for (const ref of refs) {
      const events = await deps.repository.readOutbox(ref);
      if (events.length === 0) continue;
      outboxes += 1;
      try {
        await deliverEvents(ref, events, deps);
        delivered += events.length;
        report.onDelivered?.(events);
      } catch (error) {
        failed += 1;
        report.onFailure?.(ref, error);
      }
    }
  }
  return { outboxes, delivered, failed };
}
