import type { OutboxEvent } from "../core/base/events";
import {
  type EventDeliveryDeps,
  type OutboxSweepReport,
  runOutboxSweep,
} from "../core/delivery/event-delivery";
import type { Clock } from "../core/ports/clock";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { putRevenueMovements } from "../lambda/revenue-metrics";
import { scheduledEventSchema } from "../lambda/scheduled-event";

/** The stream delivers within seconds; an outbox pending this long is one the stream could not deliver. */
const OUTBOX_SWEEP_MIN_AGE_MS = 10 * 60_000;

const SWEEP_METRICS = ["EventsDeliveredBySweep", "OutboxDeliveriesFailed"] as const;

/**
 * Scheduled outbox sweep: delivers the events the table's stream left pending (README, Events), counting the MRR
 * movements they carry as publish-events does.
 */
export async function run(
  event: unknown,
  services: EventDeliveryDeps & { readonly clock: Clock },
): Promise<OutboxSweepReport> {
  const invocation = scheduledEventSchema.parse(event);
  const before = new Date(services.clock.now().getTime() - OUTBOX_SWEEP_MIN_AGE_MS);
  const delivered: OutboxEvent[] = [];
  const report = await runOutboxSweep(services, before, {
    onDelivered: (events) => delivered.push(...events),
    onFailure: (ref, error) => logger.error("outbox delivery failed", { ref, error }),
  });
  logger.info("outbox sweep finished", { ...invocation, ...report });
  const counts = new MetricCounts(SWEEP_METRICS);
  counts.add("EventsDeliveredBySweep", report.delivered);
  counts.add("OutboxDeliveriesFailed", report.failed);
  counts.putInto(metrics);
  putRevenueMovements(delivered);
  return report;
}
