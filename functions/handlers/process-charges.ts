import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { processChargeMessage } from "../core/charging/charge-engine";
import { parseChargeMessage } from "../core/ports/queues";
import {
  CHARGE_METRICS,
  MESSAGE_METRICS,
  observeCharges,
  reportRecordResults,
} from "../lambda/charge-metrics";
import { MetricCounts } from "../lambda/metric-counts";
import { metrics } from "../lambda/observability";
import { processSqsRecords, type QueueConsumer } from "../lambda/sqs-work-results";

type ChargeWorkerDeps = Parameters<typeof observeCharges>[0] & { readonly consumer: QueueConsumer };

/**
 * The charge worker (SQS, ReportBatchItemFailures). Not Powertools' BatchProcessor: a retry must come back after
 * its own backoff, which takes a ChangeMessageVisibility per record; processSqsRecords does that (and validates each
 * record) and is the same code the local poller runs, so local mode and Lambda retry alike.
 */
export async function run(event: SQSEvent, services: ChargeWorkerDeps): Promise<SQSBatchResponse> {
  const counts = new MetricCounts([...CHARGE_METRICS, ...MESSAGE_METRICS]);
  const deps = observeCharges(services, counts);
  const outcome = await processSqsRecords(event.Records, {
    ...services.consumer,
    parse: parseChargeMessage,
    handler: (message, receiveCount) => processChargeMessage(message, receiveCount, deps),
  });
  reportRecordResults(outcome.results, counts);
  counts.putInto(metrics);
  return { batchItemFailures: outcome.batchItemFailures };
}
