import { defineHandler } from "../composition/handler-definition";
import { lambdaHandler } from "../composition/lambda-entry";
import { SERVICE_SETS } from "../composition/service-sets";
import { type JanitorDeps, type JanitorReport, runJanitor } from "../core/janitor";
import { CHARGE_METRICS, MetricCounts, observeCharges } from "../runtime/charge-metrics";
import { logger, metrics } from "../runtime/observability";
import { scheduledEventSchema } from "../runtime/scheduled-event";

const ATTEMPT_METRICS = [
  "AttemptsExamined",
  "AttemptsResolved",
  "AttemptsRequeued",
  "AttemptsDeferred",
] as const;

/** Scheduled janitor: settles attempts left open past their lease through retrieve. */
export async function sweepAttempts(event: unknown, services: JanitorDeps): Promise<JanitorReport> {
  const invocation = scheduledEventSchema.parse(event);
  const counts = new MetricCounts([...CHARGE_METRICS, ...ATTEMPT_METRICS]);
  const report = await runJanitor({ ...observeCharges(services, counts), queue: services.queue });
  logger.info("janitor finished", { ...invocation, ...report });
  counts.add("AttemptsExamined", report.examined);
  counts.add("AttemptsResolved", report.resolved);
  counts.add("AttemptsRequeued", report.requeued);
  counts.add("AttemptsDeferred", report.deferred);
  counts.putInto(metrics);
  return report;
}

export const definition = defineHandler(SERVICE_SETS.billing, sweepAttempts);
export const handler = lambdaHandler(definition);
