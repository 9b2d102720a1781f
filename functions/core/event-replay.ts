import * as z from "zod";
import type { OutboxEvent } from "./events";
import type { BillingRepository, EventLogQuery, EventPublisher } from "./ports";

// Replay of the event log (README, Events): a consumer that lost its own data catches up on a subscription's events
// or a time range's. The events go to the bus again under their own event_ids, so consumers that kept theirs drop
// them as the duplicates they are.

const instant = z.iso.datetime({ offset: true });

/** What replay-events is asked for (and the ops CLI sends): one subscription's events, or [from, to). */
export const eventLogRequestSchema = z.union([
  z.strictObject({ subscription_id: z.string().min(1).max(200) }),
  z
    .strictObject({ from: instant, to: instant })
    .refine((range) => Date.parse(range.from) < Date.parse(range.to), {
      path: ["to"],
      error: "must be after from",
    }),
]);
export type EventLogRequest = z.infer<typeof eventLogRequestSchema>;

export function eventLogQueryOf(request: EventLogRequest): EventLogQuery {
  return "subscription_id" in request
    ? { subscription_id: request.subscription_id }
    : { from: new Date(request.from), to: new Date(request.to) };
}

/** What a replay did; replay-events answers it, and the ops CLI reads it back. */
export const replayReportSchema = z
  .object({
    published: z.number().int(),
    /** The first and last occurred_at among them. */
    first_occurred_at: z.string().optional(),
    last_occurred_at: z.string().optional(),
  })
  .readonly();
export type ReplayReport = z.infer<typeof replayReportSchema>;

export interface EventReplayDeps {
  readonly repository: Pick<BillingRepository, "readEventLog">;
  readonly events: EventPublisher;
}

/** Publishes the logged events the query selects, a page at a time. */
export async function replayEvents(query: EventLogQuery, deps: EventReplayDeps): Promise<ReplayReport> {
  let published = 0;
  let first: string | undefined;
  let last: string | undefined;
  for await (const page of deps.repository.readEventLog(query)) {
    await deps.events.publish(page);
    published += page.length;
    for (const { occurred_at } of page) {
      if (first === undefined || Date.parse(occurred_at) < Date.parse(first)) first = occurred_at;
      if (last === undefined || Date.parse(occurred_at) > Date.parse(last)) last = occurred_at;
    }
  }
  return { published, first_occurred_at: first, last_occurred_at: last };
}

/**
 * Up to `limit` logged events the query selects, by when they occurred; `more` when the log held others (a time
 * range is read day by day, so they are the earliest days' events).
 */
export async function listLoggedEvents(
  query: EventLogQuery,
  limit: number,
  repository: Pick<BillingRepository, "readEventLog">,
): Promise<{ readonly events: readonly OutboxEvent[]; readonly more: boolean }> {
  const events: OutboxEvent[] = [];
  for await (const page of repository.readEventLog(query)) {
    events.push(...page);
    if (events.length > limit) break;
  }
  events.sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
  return { events: events.slice(0, limit), more: events.length > limit };
}
