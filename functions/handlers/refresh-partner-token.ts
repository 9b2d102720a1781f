import { MetricUnit } from "@aws-lambda-powertools/metrics";
import {
  type PartnerTokenRefreshDeps,
  type PartnerTokenRefreshReport,
  refreshPartnerToken as refresh,
} from "../core/partner/partner-token-refresh";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";

/**
 * Scheduled every 6 h: keeps a partner access token with time left in Secrets Manager for every reader. The
 * PartnerTokenHoursLeft metric is put even when the refresh fails, so an alarm below 2 h sees what readers see.
 */
export async function run(
  event: unknown,
  services: PartnerTokenRefreshDeps,
): Promise<PartnerTokenRefreshReport> {
  const invocation = scheduledEventSchema.parse(event);
  const report = await refresh(services);
  metrics.addMetric("PartnerTokenHoursLeft", MetricUnit.NoUnit, report.hoursLeft);
  if (report.kind === "failed") throw new Error(`partner token refresh failed: ${report.reason}`);
  logger.info("partner token checked", { ...invocation, ...report });
  return report;
}
