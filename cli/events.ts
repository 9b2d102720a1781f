import type { Command } from "commander";
import { z } from "zod";
import {
  type EventLogRequest,
  eventLogQueryOf,
  eventLogRequestSchema,
  listLoggedEvents,
  replayReportSchema,
} from "../functions/core/event-replay";
import { fieldOf } from "../functions/gateway/errors";
import { CliError, type CommandRunner, emit, orDash, parseLimit } from "./cli-io";
import { invokeFunction } from "./invoke";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

const DAY_MS = 86_400_000;

const selectionOptions = z.object({
  subscription: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  endpoint: z.string().optional(),
});

/** --subscription, or --from and --to: the event log request they make, or a CliError naming the option. */
function requestOf(command: Command): EventLogRequest {
  const { subscription, from, to, endpoint } = selectionOptions.parse(command.opts());
  if (subscription === undefined && from === undefined && to === undefined)
    throw new CliError(
      "name the events: --subscription <id>, or --from and --to (ISO 8601 instants, e.g. 2027-03-01T00:00:00Z)",
    );
  if (subscription !== undefined && (from !== undefined || to !== undefined))
    throw new CliError("give --subscription, or --from and --to, not both");
  const only = endpoint === undefined ? {} : { endpoint_id: endpoint };
  const request = eventLogRequestSchema.safeParse(
    subscription === undefined ? { from, to, ...only } : { subscription_id: subscription, ...only },
    { reportInput: false },
  );
  if (!request.success) {
    const [issue] = request.error.issues;
    if (issue === undefined) throw new CliError("invalid selection");
    const field = fieldOf(issue);
    throw new CliError(`--${field === "endpoint_id" ? "endpoint" : field || "from"} ${issue.message}`);
  }
  return request.data;
}

/**
 * A time range as the slices replay-events is invoked with: at most one UTC day each (the event log's partitions),
 * so that each invocation stays well inside the function's timeout.
 */
export function daySlices(from: Date, to: Date): { readonly from: string; readonly to: string }[] {
  const slices = [];
  for (let start = from.getTime(); start < to.getTime(); ) {
    const end = Math.min((Math.floor(start / DAY_MS) + 1) * DAY_MS, to.getTime());
    slices.push({ from: new Date(start).toISOString(), to: new Date(end).toISOString() });
    start = end;
  }
  return slices;
}

function withSelection(command: Command): Command {
  return command
    .option("--subscription <id>", "one subscription's events")
    .option("--from <instant>", "events that occurred at or after this ISO 8601 instant")
    .option("--to <instant>", "…and before this one");
}

/** `events list` and `events replay`: the event log (README, Events), read and re-published. */
export function addEventsCommands(program: Command, run: CommandRunner): void {
  const events = program.command("events").description("the event log: delivered events, kept for replay");
  withSelection(events.command("list"))
    .description("logged events of a subscription or a time range, by when they occurred")
    .option("--limit <n>", "at most this many", parseLimit, 100)
    .action(
      run(async (command, out) => {
        const request = requestOf(command);
        const limit = z.number().parse(command.opts().limit);
        await withTarget(await resolveTarget(command), async (session) => {
          const repository = await repositoryOf(session);
          const found = await listLoggedEvents(eventLogQueryOf(request), limit, repository);
          emit(out, found, () => [
            formatTable(
              ["EVENT", "TYPE", "SUBSCRIPTION", "ORDER", "OCCURRED"],
              found.events.map((event) => [
                event.event_id,
                event.type,
                event.subscription_id,
                orDash("order_id" in event ? event.order_id : undefined),
                event.occurred_at,
              ]),
            ),
            ...(found.more ? [`more events than --limit ${limit}: narrow the range or raise --limit`] : []),
          ]);
        });
      }),
    );
  withSelection(events.command("replay"))
    .description(
      "publish logged events to the bus again, under their own event_ids (consumers de-duplicate): every webhook endpoint subscribed to them receives them again",
    )
    .option(
      "--endpoint <id>",
      "only this webhook endpoint (we_…): the events are queued for it alone, not published to the bus",
    )
    .action(
      run(async (command, out) => {
        const request = requestOf(command);
        const only = request.endpoint_id === undefined ? {} : { endpoint_id: request.endpoint_id };
        const slices =
          "subscription_id" in request
            ? [request]
            : daySlices(new Date(request.from), new Date(request.to)).map((slice) => ({ ...slice, ...only }));
        await withTarget(await resolveTarget(command), async (session) => {
          let published = 0;
          for (const slice of slices) {
            const report = await invokeFunction(session, "replay-events", slice, replayReportSchema);
            published += report.published;
          }
          emit(out, { published }, () => [
            request.endpoint_id === undefined
              ? `re-published ${published} event(s)`
              : `queued ${published} event(s) for webhook endpoint ${request.endpoint_id}`,
          ]);
        });
      }),
    );
}
