import { type AttemptSweepDeps, type AttemptSweepReport, runAttemptSweep } from "../core/attempt-sweep";
import { CHARGE_METRICS, observeCharges } from "../lambda/charge-metrics";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";

const ATTEMPT_METRICS = [
  "AttemptsExamined",
  "AttemptsResolved",
  "AttemptsRequeued",
  "AttemptsDeferred",
  "RefundsSettled",
  "RefundsDeferred",
] as const;

/** Scheduled attempt sweep: settles attempts and refunds left open past their lease through retrieve. */
export async function run(event: unknown, services: AttemptSweepDeps): Promise<AttemptSweepReport> {
  const invocation = scheduledEventSchema.parse(event);
  const counts = new MetricCounts([...CHARGE_METRICS, ...ATTEMPT_METRICS]);
  const report = await runAttemptSweep({ ...observeCharges(services, counts), queue: services.queue });
  logger.info("attempt sweep finished", { ...invocation, ...report });
  counts.add("AttemptsExamined", report.examined);
  counts.add("AttemptsResolved", report.resolved);
  counts.add("AttemptsRequeued", report.requeued);
  counts.add("AttemptsDeferred", report.deferred);
  counts.add("RefundsSettled", report.refunds.settled);
  counts.add("RefundsDeferred", report.refunds.deferred);
  counts.putInto(metrics);
  return report;
}
