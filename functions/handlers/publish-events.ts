import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import type { OutboxEvent } from "../core/base/events";
import { deliverEvents, type EventDeliveryDeps } from "../core/delivery/event-delivery";
import { outboxAdditionsOf } from "../inbound/outbox-stream";
import { MetricCounts } from "../lambda/metric-counts";
import { metrics } from "../lambda/observability";
import { putRevenueMovements } from "../lambda/revenue-metrics";

const DELIVERY_METRICS = ["EventsDelivered", "EventDeliveriesFailed"] as const;

/**
 * The billing table's stream (README, Events): each write that added events to an item's outbox has them published
 * and marked delivered. A record that fails is reported (Powertools' batch processor, ReportBatchItemFailures):
 * Lambda retries from it, in order, and after its last retry the outbox sweep delivers what is still pending.
 */
export async function run(
  event: DynamoDBStreamEvent,
  services: EventDeliveryDeps,
): Promise<DynamoDBBatchResponse> {
  const counts = new MetricCounts(DELIVERY_METRICS);
  const delivered: OutboxEvent[] = [];
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  try {
    return await processPartialResponse(
      event,
      async (record: DynamoDBRecord) => {
        const { ref, events, outbox } = outboxAdditionsOf(record);
        try {
          await deliverEvents(ref, events, services, outbox);
        } catch (error) {
          counts.add("EventDeliveriesFailed");
          throw error;
        }
        counts.add("EventsDelivered", events.length);
        delivered.push(...events);
      },
      processor,
    );
  } finally {
    counts.putInto(metrics);
    putRevenueMovements(delivered);
  }
}
