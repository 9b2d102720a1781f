import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import {
  attemptWebhookDelivery,
  WEBHOOK_RETRY_MAX_SECONDS,
  type WebhookAttemptDeps,
  type WebhookAttemptOutcome,
} from "../core/delivery/webhooks";
import { parseWebhookDeliveryMessage } from "../core/ports/webhook-ports";
import { reportQueueResults } from "../lambda/charge-metrics";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { processSqsRecords, type QueueConsumer } from "../lambda/sqs-work-results";

/** WebhookDeliveriesFailed wants an alarm: an endpoint took nothing for three days. */
const OUTCOME_METRICS = {
  delivered: "WebhooksDelivered",
  retrying: "WebhookAttemptsFailed",
  failed: "WebhookDeliveriesFailed",
  duplicate: "WebhooksDuplicate",
  endpoint_deleted: "WebhooksToDeletedEndpoints",
  not_due: undefined,
} as const satisfies Record<WebhookAttemptOutcome, string | undefined>;

const QUEUE_METRICS = {
  retried: "WebhookMessagesRetried",
  malformed: "WebhookMessagesMalformed",
  failed: "WebhookMessagesFailed",
} as const;

type WebhookMetric =
  | NonNullable<(typeof OUTCOME_METRICS)[WebhookAttemptOutcome]>
  | (typeof QUEUE_METRICS)[keyof typeof QUEUE_METRICS];

const WEBHOOK_METRICS: readonly WebhookMetric[] = [
  ...Object.values(OUTCOME_METRICS).filter((name) => name !== undefined),
  ...Object.values(QUEUE_METRICS),
];

export type WebhookSenderDeps = WebhookAttemptDeps & { readonly consumer: QueueConsumer };

/**
 * The webhook sender (SQS, ReportBatchItemFailures): each record is one event for one endpoint, POSTed signed; an
 * endpoint that does not answer 2xx gets it again after the backoff (the message's visibility), for three days from
 * the first attempt, then the delivery is failed (README, Webhooks).
 */
export async function run(event: SQSEvent, services: WebhookSenderDeps): Promise<SQSBatchResponse> {
  const counts = new MetricCounts(WEBHOOK_METRICS);
  const outcome = await processSqsRecords(event.Records, {
    ...services.consumer,
    maxDelaySeconds: WEBHOOK_RETRY_MAX_SECONDS,
    parse: parseWebhookDeliveryMessage,
    handler: async (message, _receiveCount, messageId) => {
      const attempt = await attemptWebhookDelivery(message, messageId, services);
      const metric = OUTCOME_METRICS[attempt.outcome];
      if (metric !== undefined) counts.add(metric);
      logger[attempt.outcome === "failed" ? "warn" : "info"]("webhook attempt", {
        delivery_id: message.delivery_id,
        endpoint_id: message.endpoint_id,
        event_id: message.event_id,
        outcome: attempt.outcome,
        attempts: attempt.delivery?.attempts,
        last_status: attempt.delivery?.last_status,
        last_error: attempt.delivery?.last_error,
        next_attempt_at: attempt.delivery?.next_attempt_at,
      });
      return attempt.work;
    },
  });
  reportQueueResults(outcome.results, counts, { ...QUEUE_METRICS, label: "webhook delivery" });
  counts.putInto(metrics);
  return { batchItemFailures: outcome.batchItemFailures };
}
