import type { EndpointReplay, EventReplayDeps } from "../core/delivery/event-replay";
import {
  eventLogQueryOf,
  eventLogRequestSchema,
  type ReplayReport,
  replayEvents,
} from "../core/delivery/event-replay";
import { logger } from "../lambda/observability";
import { parseFields } from "../shared/zod-fields";

/** The event log and the bus; for a replay to one endpoint, the webhook store and queue. */
interface ReplayRequestDeps extends EventReplayDeps, Pick<EndpointReplay, "ids" | "clock"> {
  readonly webhookStore: EndpointReplay["store"];
  readonly webhookQueue: EndpointReplay["queue"];
}

/**
 * Invoked by the ops CLI (`billing events replay`): re-publishes the logged events of one subscription, or of a time
 * range, to the bus under their own event_ids (or, with endpoint_id, queues them for that webhook endpoint alone),
 * and answers how many.
 */
export async function run(event: unknown, services: ReplayRequestDeps): Promise<ReplayReport> {
  const request = parseFields(eventLogRequestSchema, event);
  const { endpoint_id: endpointId } = request;
  const toEndpoint =
    endpointId === undefined
      ? undefined
      : {
          endpointId,
          store: services.webhookStore,
          queue: services.webhookQueue,
          ids: services.ids,
          clock: services.clock,
        };
  const report = await replayEvents(eventLogQueryOf(request), services, toEndpoint);
  logger.info("events replayed", { ...request, ...report });
  return report;
}
