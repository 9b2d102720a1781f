import {
  type AttemptSweepDeps,
  type AttemptSweepReport,
  runAttemptSweep,
} from "../core/intake/attempt-sweep";
import { CHARGE_METRICS, observeCharges } from "../lambda/charge-metrics";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";

const ATTEMPT_METRICS = [
  "AttemptsExamined",
  "AttemptsResolved",
  "AttemptsRequeued",
  "AttemptsDeferred",
  "CheckoutsExpired",
  "CreditsSent",
  "RefundsSettled",
  "RefundsDeferred",
  "SweepItemsFailed",
  "SweepItemsOverdue",
] as const;

/**
 * Scheduled attempt sweep: settles attempts and refunds left open past their lease through retrieve, sends plan
 * credits left pending, and closes checkouts left unpaid past their end.
 */
export async function run(event: unknown, services: AttemptSweepDeps): Promise<AttemptSweepReport> {
  const invocation = scheduledEventSchema.parse(event);
  const counts = new MetricCounts([...CHARGE_METRICS, ...ATTEMPT_METRICS]);
  const report = await runAttemptSweep({ ...observeCharges(services, counts), queue: services.queue });
  const { failed, overdue, ...totals } = report;
  logger.info("attempt sweep finished", {
    ...invocation,
    ...totals,
    failed: failed.length,
    overdue: overdue.length,
  });
  // Each by id, for the alarms' runbooks: `billing open list` shows the same items with their state.
  for (const failure of failed) logger.error("sweep item failed", { ...failure });
  if (overdue.length > 0) logger.error("open past a day", { ids: overdue });
  counts.add("AttemptsExamined", report.examined);
  counts.add("AttemptsResolved", report.resolved);
  counts.add("AttemptsRequeued", report.requeued);
  counts.add("AttemptsDeferred", report.deferred);
  counts.add("CheckoutsExpired", report.checkouts.expired);
  counts.add("CreditsSent", report.credits.sent);
  counts.add("RefundsSettled", report.refunds.settled);
  counts.add("RefundsDeferred", report.refunds.deferred);
  counts.add("SweepItemsFailed", failed.length);
  counts.add("SweepItemsOverdue", overdue.length);
  counts.putInto(metrics);
  return report;
}
