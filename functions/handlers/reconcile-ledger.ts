import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { ReconciliationDeps } from "../core/refunds/reconciliation";
import {
  previousDay,
  type ReconciliationReport,
  reconcile,
  reconciliationPeriodSchema,
} from "../core/refunds/reconciliation";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";
import { parseFields } from "../shared/zod-fields";

const asksForPeriod = (event: unknown) =>
  typeof event === "object" && event !== null && ("from" in event || "to" in event);

/**
 * Daily (EventBridge Scheduler): yesterday's gateway transactions against the ledger, or the {from, to} the event
 * names. Puts ReconciliationMismatches (alarm when > 0), logs one line per mismatch (ids and amounts) and returns
 * the report. Fails the invocation when the gateway cannot answer.
 */
export async function run(event: unknown, services: ReconciliationDeps): Promise<ReconciliationReport> {
  const period = asksForPeriod(event)
    ? parseFields(reconciliationPeriodSchema, event)
    : previousDay(services.clock.now(), services.calendar);
  const outcome = await reconcile(period, services);
  if (outcome.kind === "failed")
    throw new Error(`reconciliation of ${period.from}–${period.to} failed: ${outcome.reason}`);
  const { report } = outcome;
  for (const mismatch of report.mismatches) logger.warn("reconciliation mismatch", { ...mismatch });
  for (const orderId of report.chargebacks_recorded)
    logger.warn("chargeback deduction recorded by reconciliation", { order_id: orderId });
  metrics.addMetric("ReconciliationMismatches", MetricUnit.Count, report.mismatches.length);
  metrics.addMetric("ReconciliationGatewayRecords", MetricUnit.Count, report.gateway_records);
  logger.info("reconciliation finished", {
    ...scheduledEventSchema.parse(event),
    from: report.from,
    to: report.to,
    gatewayRecords: report.gateway_records,
    ledgerLines: report.ledger_lines,
    matched: report.matched,
    mismatches: report.mismatches.length,
    chargebacksRecorded: report.chargebacks_recorded.length,
  });
  return report;
}
