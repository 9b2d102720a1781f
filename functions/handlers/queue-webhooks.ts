import * as z from "zod";
import { outboxEventSchema } from "../core/base/events";
import { queueWebhookDeliveries, type WebhookFanOutDeps } from "../core/delivery/webhooks";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { lazySchema } from "../shared/lazy-schema";

/** What an EventBridge rule hands its target: the envelope (its id and time are the same on every retry). */
const busEventSchema = lazySchema(() =>
  z.looseObject({
    id: z.string().min(1),
    time: z.iso.datetime({ offset: true }),
    detail: z.unknown(),
  }),
);

/**
 * Every billing event on the bus (a rule on all their types): one delivery message per endpoint subscribed to its
 * type, on the webhook queue (README, Webhooks). The event is sent on exactly as the bus carried it. A failure throws,
 * so the bus retries the event (the deliveries it queued before are named the same again).
 */
export async function run(event: unknown, services: WebhookFanOutDeps): Promise<{ readonly queued: number }> {
  const envelope = busEventSchema.parse(event, { reportInput: false });
  const detail = z.looseObject({}).parse(envelope.detail, { reportInput: false });
  const { event_id, type } = outboxEventSchema.parse(detail, { reportInput: false });
  const queued = await queueWebhookDeliveries(envelope, { ...detail, event_id, type }, services);
  const counts = new MetricCounts(["WebhooksQueued"] as const);
  counts.add("WebhooksQueued", queued);
  counts.putInto(metrics);
  if (queued > 0) logger.info("webhooks queued", { event_id, type, queued });
  return { queued };
}
