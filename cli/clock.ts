import type { Command } from "commander";
import { z } from "zod";
import { localClockBody } from "../functions/api/merchant-api-schemas";
import { argumentsOf, CliError, type CommandRunner, emit } from "./cli-io";
import { formatInstant } from "./dates";
import { resolveTarget } from "./target";

const clockAnswer = z.object({ now: z.string() });
const errorAnswer = z.object({ error: z.object({ message: z.string() }) });

/** `clock advance <duration>`: POST /local/clock on the local stack; a deployment runs on real time. */
export function addClockCommands(program: Command, run: CommandRunner): void {
  program
    .command("clock")
    .description("the local stack's shared clock")
    .command("advance")
    .description("move the local clock (schedules fire on the way, queues are drained)")
    .argument("<duration>", "ISO 8601 duration, e.g. P31D or PT1H")
    .action(
      run(async (command, out) => {
        const [advance = ""] = argumentsOf(command);
        const target = await resolveTarget(command);
        if (target.kind !== "local")
          throw new CliError("clock advance works on the local stack only: a deployment runs on real time");
        const body = localClockBody.safeParse({ advance }, { reportInput: false });
        if (!body.success) throw new CliError(`${advance} is not an ISO 8601 duration such as P31D or PT1H`);
        let response: Response;
        try {
          response = await fetch(new URL("/local/clock", target.apiUrl), {
            method: "POST",
            headers: { authorization: `Bearer ${target.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify(body.data),
          });
        } catch {
          throw new CliError(`the local stack of ${target.source} does not answer at ${target.apiUrl}`);
        }
        const answer: unknown = await response.json().catch(() => undefined);
        if (!response.ok) {
          const refused = errorAnswer.safeParse(answer);
          throw new CliError(
            `the local stack refused the clock move (${response.status}${refused.success ? `: ${refused.data.error.message}` : ""})`,
          );
        }
        const { now } = clockAnswer.parse(answer);
        emit(out, { now }, () => [`local clock now ${formatInstant(now)}`]);
      }),
    );
}
