import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { type IntakeDeps, type IntakeOutcome, processIntakeMessage } from "../core/intake/intake";
import { parseIntakeMessage } from "../core/ports/intake-messages";
import { reportQueueResults } from "../lambda/charge-metrics";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { processSqsRecords, type QueueConsumer } from "../lambda/sqs-work-results";

/** One metric per outcome worth watching; ChargebacksUnmatched and StatusCallbacksRejected want an alarm. */
const OUTCOME_METRICS = {
  checkout_completed: "CheckoutsCompleted",
  status_rejected: "StatusCallbacksRejected",
  status_duplicate: "StatusCallbacksRepeated",
  chargeback_recorded: "ChargebacksReceived",
  chargeback_duplicate: "ChargebacksDuplicate",
  chargeback_unmatched: "ChargebacksUnmatched",
  payout_notified: "PayoutNotices",
  webhook_ignored: "WebhooksIgnored",
  payment_confirmed: "PaymentHintsConfirmed",
  payment_hint_ignored: "PaymentHintsIgnored",
  recurring_recorded: "RecurringChargesRecorded",
  recurring_ignored: "RecurringNoticesIgnored",
  retried: undefined,
} as const satisfies Record<IntakeOutcome, string | undefined>;

/** Outcomes a human should look at: a chargeback we cannot place, a callback that failed verify. */
const ATTENTION: Partial<Record<IntakeOutcome, "warn" | "error">> = {
  chargeback_unmatched: "error",
  status_rejected: "warn",
};

const QUEUE_METRICS = {
  retried: "IntakeMessagesRetried",
  malformed: "IntakeMessagesMalformed",
  failed: "IntakeMessagesFailed",
} as const;

type IntakeMetric =
  | NonNullable<(typeof OUTCOME_METRICS)[IntakeOutcome]>
  | (typeof QUEUE_METRICS)[keyof typeof QUEUE_METRICS];

const INTAKE_METRICS: readonly IntakeMetric[] = [
  ...Object.values(OUTCOME_METRICS).filter((name) => name !== undefined),
  ...Object.values(QUEUE_METRICS),
];

export type IntakeWorkerDeps = IntakeDeps & { readonly consumer: QueueConsumer };

/**
 * The intake processor (SQS, ReportBatchItemFailures): each message's kind decides what it changes (core/intake/intake.ts);
 * transient trouble is retried through the queue with backoff, as the charge worker does, up to the DLQ.
 */
export async function run(event: SQSEvent, services: IntakeWorkerDeps): Promise<SQSBatchResponse> {
  const counts = new MetricCounts(INTAKE_METRICS);
  const outcome = await processSqsRecords(event.Records, {
    ...services.consumer,
    parse: parseIntakeMessage,
    handler: async (message, receiveCount) => {
      const result = await processIntakeMessage(message, receiveCount, services);
      const metric = OUTCOME_METRICS[result.outcome];
      if (metric !== undefined) counts.add(metric);
      logger[ATTENTION[result.outcome] ?? "info"]("intake message processed", {
        kind: message.kind,
        outcome: result.outcome,
        note: result.work.note,
      });
      return result.work;
    },
  });
  reportQueueResults(outcome.results, counts, { ...QUEUE_METRICS, label: "intake message" });
  counts.putInto(metrics);
  return { batchItemFailures: outcome.batchItemFailures };
}
