import { MetricUnit } from "@aws-lambda-powertools/metrics";
import {
  previousDay,
  type ReconciliationDeps,
  reconciliationPeriodSchema,
} from "../core/refunds/reconciliation";
import { type ReconciliationRun, reconcilePeriod, type SettlementDeps } from "../core/refunds/settlements";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";
import { parseFields } from "../shared/zod-fields";

const asksForPeriod = (event: unknown) =>
  typeof event === "object" && event !== null && ("from" in event || "to" in event);

/**
 * Daily (EventBridge Scheduler): yesterday's gateway transactions against the ledger and yesterday's payouts against
 * both, then today's expected payouts kept; or the {from, to} the event names (transactions and payouts of those
 * days). Puts ReconciliationMismatches (both kinds; alarm when > 0), logs one line per mismatch (ids and amounts)
 * and returns the report. Fails the invocation when the gateway cannot answer.
 */
export async function run(
  event: unknown,
  services: ReconciliationDeps & SettlementDeps,
): Promise<ReconciliationRun> {
  const scheduled = !asksForPeriod(event);
  const period = scheduled
    ? previousDay(services.clock.now(), services.calendar)
    : parseFields(reconciliationPeriodSchema, event);
  const outcome = await reconcilePeriod(period, { forecast: scheduled }, services);
  if (outcome.kind === "failed")
    throw new Error(`reconciliation of ${period.from}–${period.to} failed: ${outcome.reason}`);
  const { report } = outcome;
  for (const mismatch of report.mismatches) logger.warn("reconciliation mismatch", { ...mismatch });
  for (const mismatch of report.settlement_mismatches) logger.warn("settlement mismatch", { ...mismatch });
  for (const orderId of report.chargebacks_recorded)
    logger.warn("chargeback deduction recorded by reconciliation", { order_id: orderId });
  const mismatches = report.mismatches.length + report.settlement_mismatches.length;
  metrics.addMetric("ReconciliationMismatches", MetricUnit.Count, mismatches);
  metrics.addMetric("ReconciliationGatewayRecords", MetricUnit.Count, report.gateway_records);
  logger.info("reconciliation finished", {
    ...scheduledEventSchema.parse(event),
    from: report.from,
    to: report.to,
    gatewayRecords: report.gateway_records,
    ledgerLines: report.ledger_lines,
    matched: report.matched,
    mismatches: report.mismatches.length,
    payouts: report.payouts.length,
    settlementMismatches: report.settlement_mismatches.length,
    chargebacksRecorded: report.chargebacks_recorded.length,
  });
  return report;
}
