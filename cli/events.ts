import type { Command } from "commander";
import { z } from "zod";
import type { OutboxEvent } from "../functions/core/base/events";
import {
  type EventLogRequest,
  eventLogQueryOf,
  eventLogRequestSchema,
  listLoggedEvents,
  replayReportSchema,
} from "../functions/core/delivery/event-replay";
import { fieldOf } from "../functions/shared/zod-fields";
import { CliError, type CommandRunner, emit, orDash, parseLimit } from "./cli-io";
import { formatInstant, INSTANT_FORMS, parseInstantOption } from "./dates";
import { addEventsTriggerCommand } from "./events-trigger";
import { invokeFunction } from "./invoke";
import { withProgress } from "./progress";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable, shortUuid } from "./text-table";

const DAY_MS = 86_400_000;

const selectionOptions = z.object({
  subscription: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  endpoint: z.string().optional(),
});

const RANGE_EXAMPLE = "--from 2027-03-01 --to 2027-03-02T06:00Z";

/** --subscription, or --from and --to: the event log request they make, or a CliError saying what to type. */
function requestOf(command: Command): EventLogRequest {
  const { subscription, from, to, endpoint } = selectionOptions.parse(command.opts());
  if (subscription === undefined && from === undefined && to === undefined)
    throw new CliError(
      `name the events: --subscription <id>, or --from and --to (ISO 8601 dates or instants), e.g. ${RANGE_EXAMPLE}`,
    );
  const only = endpoint === undefined ? {} : { endpoint_id: endpoint };
  if (subscription !== undefined) {
    if (from !== undefined || to !== undefined)
      throw new CliError("give --subscription, or --from and --to, not both: drop one of them");
    const request = eventLogRequestSchema.safeParse(
      { subscription_id: subscription, ...only },
      { reportInput: false },
    );
    if (!request.success)
      throw selectionError(
        request.error.issues,
        "--subscription must be a subscription id, e.g. --subscription sub_4mjf0mp6q6kny7ba",
      );
    return request.data;
  }
  if (from === undefined || to === undefined)
    throw new CliError(`give both ends of the range, --from and --to, e.g. ${RANGE_EXAMPLE}`);
  const range = { from: parseInstantOption("--from", from), to: parseInstantOption("--to", to) };
  const request = eventLogRequestSchema.safeParse({ ...range, ...only }, { reportInput: false });
  if (!request.success)
    throw selectionError(
      request.error.issues,
      `--to (${formatInstant(range.to)}) must be after --from (${formatInstant(range.from)}), e.g. ${RANGE_EXAMPLE}`,
    );
  return request.data;
}

/** A refused selection's error: --endpoint's own, else the message of the option at fault. */
function selectionError(issues: readonly z.core.$ZodIssue[], otherwise: string): CliError {
  return issues.some((issue) => fieldOf(issue) === "endpoint_id")
    ? new CliError("--endpoint must be a webhook endpoint id, e.g. --endpoint we_4mjf0mp6q6kny7ba")
    : new CliError(otherwise);
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
    .option(
      "--from <instant>",
      `events that occurred at or after this ISO 8601 date or instant: ${INSTANT_FORMS}`,
    )
    .option("--to <instant>", "…and before this one (same forms)");
}

/** Logged events as a table: ids shortened (--json has them whole). */
export function eventTable(events: readonly OutboxEvent[]): string {
  return formatTable(
    ["EVENT", "TYPE", "SUBSCRIPTION", "ORDER", "OCCURRED"],
    events.map((event) => [
      shortUuid(event.event_id),
      event.type,
      event.subscription_id,
      orDash("order_id" in event ? event.order_id : undefined),
      formatInstant(event.occurred_at),
    ]),
  );
}

/** `events list` and `events replay`: the event log (README, Events), read and re-published. */
export function addEventsCommands(program: Command, run: CommandRunner): void {
  const events = program.command("events").description("the event log: delivered events, kept for replay");
  addEventsTriggerCommand(events, run);
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
            eventTable(found.events),
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
          // One invocation per slice (a UTC day): the bar counts them; a day that re-published anything is noted.
          const published = await withProgress(
            out.io,
            { label: "replaying", total: slices.length },
            async (progress) => {
              let count = 0;
              for (const [index, slice] of slices.entries()) {
                const report = await invokeFunction(session, "replay-events", slice, replayReportSchema);
                count += report.published;
                progress.update(index + 1, `${count} events re-published`);
                if ("from" in slice && slices.length > 1 && report.published > 0)
                  progress.note(
                    `${formatInstant(slice.from)} to ${formatInstant(slice.to)}: re-published ${report.published} event(s) (${index + 1} of ${slices.length})`,
                  );
              }
              return count;
            },
          );
          emit(out, { published }, () => [
            request.endpoint_id === undefined
              ? `re-published ${published} event(s)`
              : `queued ${published} event(s) for webhook endpoint ${request.endpoint_id}`,
          ]);
        });
      }),
    );
}
