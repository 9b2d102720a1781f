import type { Command } from "commander";
import { BillingApiError, type BillingClient, createBillingClient, ok } from "recurring-billing-client";
import { z } from "zod";
import { localClockBody } from "../functions/api/merchant-api-schemas";
import { addIsoDuration, parseIsoDuration } from "../sandbox/time/iso-duration";
import { argumentsOf, CliError, type CommandRunner, emit } from "./cli-io";
import { formatInstant } from "./dates";
import { withProgress } from "./progress";
import { resolveTarget, type Target } from "./target";

const clockAnswer = z.object({ now: z.string() });

/** How often the stack's clock is read while it moves, for the bar. */
const POLL_MS = 250;

export type LocalTarget = Extract<Target, { kind: "local" }>;

/** The local stack's API does not answer: what to do about it. */
export const notAnswering = (target: LocalTarget) =>
  new CliError(
    `the local stack of ${target.source} does not answer at ${target.apiUrl}: is npm start still running? Start it again`,
  );

/** The stack's shared clock now (the sandbox's GET /sandbox/clock). */
async function stackNow(target: LocalTarget): Promise<Date> {
  const response = await fetch(new URL("/sandbox/clock", target.sandboxUrl));
  return new Date(clockAnswer.parse(await response.json()).now);
}

/**
 * The local stack's merchant API through the typed client (recurring-billing-client). A clock move is never repeated
 * (it moves the clock again), so neither is any of its calls: a failure is the operator's to see.
 */
export const localApi = (target: LocalTarget): BillingClient =>
  createBillingClient({ baseUrl: target.apiUrl, apiKey: target.apiKey, maxRetries: 0 });

/** A call's data; its refusal (`refused` says what was refused), or no answer at all, as the operator reads it. */
export async function answered<T>(
  target: LocalTarget,
  refused: string,
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  try {
    return await ok(call);
  } catch (error) {
    if (error instanceof BillingApiError)
      throw new CliError(`${refused} (${error.status}: ${error.message})`);
    throw notAnswering(target);
  }
}

/** POST /local/clock: the clock moved by `advance`, every schedule on the way fired and the queues drained. */
export async function moveClock(target: LocalTarget, advance: string): Promise<string> {
  const moved = await answered(
    target,
    "the local stack refused the clock move",
    localApi(target).POST("/local/clock", { body: { advance } }),
  );
  return moved.now;
}

/**
 * `clock advance <duration>`: POST /local/clock on the local stack; a deployment runs on real time. The stack moves
 * its clock step by step (each schedule's fire, the sandbox's timed work); on a terminal the bar follows its clock.
 */
export function addClockCommands(program: Command, run: CommandRunner): void {
  program
    .command("clock")
    .description("the local stack's shared clock")
    .command("advance")
    .description("move the local clock (schedules fire on the way, queues are drained)")
    .argument("<duration>", "ISO 8601 duration, e.g. P31D (31 days), PT1H (an hour), P1M (a calendar month)")
    .action(
      run(async (command, out) => {
        const [advance = ""] = argumentsOf(command);
        const body = localClockBody.safeParse({ advance }, { reportInput: false });
        const duration = parseIsoDuration(advance);
        if (!body.success || duration === undefined)
          throw new CliError(
            `<duration> ${JSON.stringify(advance)} is not an ISO 8601 duration: type e.g. P31D (31 days) or PT1H (an hour)`,
          );
        const target = await resolveTarget(command);
        if (target.kind !== "local")
          throw new CliError(
            "clock advance works on the local stack only (a deployment runs on real time): pass --local",
          );
        const start = await stackNow(target).catch(() => {
          throw notAnswering(target);
        });
        const end = addIsoDuration(start, duration);
        const total = end.getTime() - start.getTime();
        const now = await withProgress(
          out.io,
          { label: "moving clock", total, percent: true },
          async (progress) => {
            if (!progress.drawn || total <= 0) return moveClock(target, advance);
            const poll = setInterval(() => {
              stackNow(target).then(
                (at) => progress.update(at.getTime() - start.getTime(), `at ${formatInstant(at)}`),
                () => undefined,
              );
            }, POLL_MS);
            try {
              return await moveClock(target, advance);
            } finally {
              clearInterval(poll);
            }
          },
        );
        emit(out, { now }, () => [`local clock now ${formatInstant(now)}`]);
      }),
    );
}
