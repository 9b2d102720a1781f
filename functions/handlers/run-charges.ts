import { MetricUnit } from "@aws-lambda-powertools/metrics";
import { type ChargeRunDeps, type ChargeRunReport, runChargeRun } from "../core/charge-run";
import { observedHandler } from "../runtime/lambda-handler";
import { logger, metrics } from "../runtime/observability";
import { scheduledEventSchema } from "../runtime/scheduled-event";
import { getChargeRunServices } from "../runtime/services-from-env";

/** Scheduled (hourly): one charge message per due subscription. Variables: chargeRunEnvironment. */
export async function runCharges(event: unknown, services: ChargeRunDeps): Promise<ChargeRunReport> {
  const invocation = scheduledEventSchema.parse(event);
  const report = await runChargeRun(services);
  logger.info("charge run finished", { ...invocation, ...report });
  metrics.addMetric("DueSubscriptionsEnqueued", MetricUnit.Count, report.enqueued);
  return report;
}

export const handler = observedHandler(async (event: unknown) =>
  runCharges(event, await getChargeRunServices()),
);
