import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import type { OutboxEvent } from "../base/events";
import type { EventLog, EventLogQuery } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { EventPublisher } from "../ports/queues";
import { queueWebhookDeliveries, type WebhookFanOutDeps } from "./webhooks";

// Replay of the event log (README, Events): a consumer that lost its own data catches up on a subscription's events
// or a time range's. The events go to the bus again under their own event_ids, so consumers that kept theirs drop
// them as the duplicates they are.

const instant = lazySchema(() => z.iso.datetime({ offset: true }));

/** Only this webhook endpoint: the events are queued for it alone, not published to the bus. */
const endpoint_id = lazySchema(() =>
  z
    .string()
    .regex(/^we_[0-9a-z]{16}$/, "must be a webhook endpoint id")
    .optional(),
);

/**
 * What replay-events is asked for (and the ops CLI sends): one subscription's events, or [from, to); to the bus, or
 * to one webhook endpoint only.
 */
export const eventLogRequestSchema = lazySchema(() =>
  z.union([
    z.strictObject({ subscription_id: z.string().min(1).max(200), endpoint_id }),
    z
      .strictObject({ from: instant, to: instant, endpoint_id })
      .refine((range) => Date.parse(range.from) < Date.parse(range.to), {
        path: ["to"],
        error: "must be after from",
      }),
  ]),
);
export type EventLogRequest = z.infer<typeof eventLogRequestSchema>;

export function eventLogQueryOf(request: EventLogRequest): EventLogQuery {
  return "subscription_id" in request
    ? { subscription_id: request.subscription_id }
    : { from: new Date(request.from), to: new Date(request.to) };
}

/** What a replay did; replay-events answers it, and the ops CLI reads it back. */
export const replayReportSchema = lazySchema(() =>
  z
    .object({
      /** Events published to the bus, or queued for the one endpoint named (those of the types it takes). */
      published: z.number().int(),
      /** The first and last occurred_at among them. */
      first_occurred_at: z.string().optional(),
      last_occurred_at: z.string().optional(),
    })
    .readonly(),
);
export type ReplayReport = z.infer<typeof replayReportSchema>;

export interface EventReplayDeps {
  readonly repository: EventLog;
  readonly events: EventPublisher;
}

/** A replay to one webhook endpoint: which, and the endpoints, their queue, the delivery ids and the clock. */
export interface EndpointReplay extends WebhookFanOutDeps {
  readonly endpointId: string;
  readonly clock: Clock;
}

/** The endpoint is not one of the merchant's: nothing was replayed. */
export class UnknownEndpointError extends Error {
  override readonly name = "UnknownEndpointError";
  constructor() {
    super("no such webhook endpoint");
  }
}

/**
 * Publishes the logged events the query selects, a page at a time; with `endpointId`, queues them for that webhook
 * endpoint alone instead (each a new delivery, so the endpoint receives it again).
 */
export async function replayEvents(
  query: EventLogQuery,
  deps: EventReplayDeps,
  endpoint?: EndpointReplay,
): Promise<ReplayReport> {
  const toEndpoint = endpoint === undefined ? undefined : await endpointReplay(endpoint);
  let published = 0;
  let first: string | undefined;
  let last: string | undefined;
  for await (const page of deps.repository.readEventLog(query)) {
    if (toEndpoint === undefined) {
      await deps.events.publish(page);
      published += page.length;
    } else for (const event of page) published += await toEndpoint(event);
    for (const { occurred_at } of page) {
      if (first === undefined || Date.parse(occurred_at) < Date.parse(first)) first = occurred_at;
      if (last === undefined || Date.parse(occurred_at) > Date.parse(last)) last = occurred_at;
    }
  }
  return { published, first_occurred_at: first, last_occurred_at: last };
}

/** Queues one event for the endpoint if it takes its type, as a delivery of its own (a replay's id and time). */
async function endpointReplay(replay: EndpointReplay): Promise<(event: OutboxEvent) => Promise<number>> {
  const endpoints = await replay.store.listEndpoints();
  if (!endpoints.some((endpoint) => endpoint.endpoint_id === replay.endpointId))
    throw new UnknownEndpointError();
  const time = replay.clock.now().toISOString();
  return (event) => {
    const source = { id: `replay:${time}:${event.event_id}`, time };
    return queueWebhookDeliveries(source, event, replay, replay.endpointId);
  };
}

/**
 * Up to `limit` logged events the query selects, by when they occurred; `more` when the log held others (a time
 * range is read day by day, so they are the earliest days' events).
 */
export async function listLoggedEvents(
  query: EventLogQuery,
  limit: number,
  repository: EventLog,
): Promise<{ readonly events: readonly OutboxEvent[]; readonly more: boolean }> {
  const events: OutboxEvent[] = [];
  for await (const page of repository.readEventLog(query)) {
    events.push(...page);
    if (events.length > limit) break;
  }
  events.sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
  return { events: events.slice(0, limit), more: events.length > limit };
}
