import { MetricUnit } from "@aws-lambda-powertools/metrics";
import { type ChargeRunDeps, type ChargeRunReport, runChargeRun } from "../core/charging/charge-run";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";

/** Scheduled (hourly): one charge message per due subscription. */
export async function run(event: unknown, services: ChargeRunDeps): Promise<ChargeRunReport> {
  const invocation = scheduledEventSchema.parse(event);
  const report = await runChargeRun(services);
  logger.info("charge run finished", { ...invocation, ...report });
  metrics.addMetric("DueSubscriptionsEnqueued", MetricUnit.Count, report.enqueued);
  return report;
}
