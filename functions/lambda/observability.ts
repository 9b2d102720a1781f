import { LogFormatter, Logger, LogItem } from "@aws-lambda-powertools/logger";
import type { LogAttributes, UnformattedAttributes } from "@aws-lambda-powertools/logger/types";
import { Metrics, type MetricUnit } from "@aws-lambda-powertools/metrics";

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

import { redact } from "./redaction";

/** The service name of every log line and metric, unless POWERTOOLS_SERVICE_NAME says otherwise. */
export const DEFAULT_SERVICE_NAME = "billing";
export const METRICS_NAMESPACE = "Billing";

/**
 * Powertools' standard JSON layout, with every attribute (message, persistent and per-call keys, errors) passed
 * through redact() on the way out: no code path can print card data or a secret, whatever it hands the logger.
 */
export class RedactingLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    const standard: LogAttributes = {
      level: attributes.logLevel,
      message: attributes.message,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: context?.coldStart,
      function_arn: context?.invokedFunctionArn,
      function_memory_size: context?.memoryLimitInMB,
      function_name: context?.functionName,
      function_request_id: context?.awsRequestId,
      sampling_rate: attributes.sampleRateValue,
      xray_trace_id: attributes.xRayTraceId,
    };
    const safe = redact({ ...standard, ...additional }, { formatError: (error) => this.formatError(error) });
    return new LogItem({ attributes: isAttributes(safe) ? safe : {} });
  }
}

function isAttributes(value: unknown): value is LogAttributes {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const serviceName = process.env.POWERTOOLS_SERVICE_NAME || DEFAULT_SERVICE_NAME;

/** Shared by every handler: one logger and one EMF metrics buffer (flushed by logMetrics) per container. */
export const logger = new Logger({ serviceName, logFormatter: new RedactingLogFormatter() });
/**
 * Powertools Metrics warns on every flush without metrics (a route that records none, or
 * POWERTOOLS_METRICS_DISABLED in local mode): expected here, so that one goes to debug; its other warnings stay
 * warnings, as JSON log lines of this logger.
 */
const metricsLogger = {
  debug: (message: unknown) => logger.debug(String(message)),
  info: (message: unknown) => logger.info(String(message)),
  error: (message: unknown) => logger.error(String(message)),
  warn: (message: unknown) =>
    String(message).startsWith("No application metrics to publish")
      ? logger.debug(String(message))
      : logger.warn(String(message)),
};
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName, logger: metricsLogger });

/**
 * Metrics of one currency (README, Revenue report), put at once as one EMF record with the dimension `currency` beside
 * the service's: money in different currencies never adds up.
 */
export function putCurrencyMetrics(
  currency: string,
  values: readonly { readonly name: string; readonly unit: Unit; readonly value: number }[],
): void {
  const byCurrency = new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName,
    logger: metricsLogger,
    defaultDimensions: { currency },
  });
  for (const { name, unit, value } of values) byCurrency.addMetric(name, unit, value);
  byCurrency.publishStoredMetrics();
}
