import type { Command } from "commander";
import { z } from "zod";
import { type CommandRunner, emit } from "./cli-io";
import { formatInstant } from "./dates";
import { invokeFunction } from "./invoke";
import { withProgress } from "./progress";
import { resolveTarget, withTarget } from "./target";

const chargeRunReportSchema = z.object({ enqueued: z.number().int(), pages: z.number().int() });

/** `charge-run`: the run-charges function invoked once, as its hourly schedule does, on the target's clock. */
export function addChargeRunCommand(program: Command, run: CommandRunner): void {
  program
    .command("charge-run")
    .description(
      "invoke the charge run once (one charge message per due subscription), as the hourly schedule does",
    )
    .action(
      run(async (command, out) => {
        await withTarget(await resolveTarget(command), async (session) => {
          const startedAt = session.runtime.clock.now();
          // Scheduler's plain input: the handler takes it as a run at the time it is invoked. It answers once, at
          // the end: on a terminal the line says what runs and for how long.
          const report = await withProgress(out.io, { label: "running" }, (progress) => {
            progress.update(0, "run-charges (one message per due subscription)…");
            return invokeFunction(session, "run-charges", {}, chargeRunReportSchema);
          });
          emit(out, { at: startedAt.toISOString(), ...report }, () => [
            `charge run at ${formatInstant(startedAt)}: ${report.enqueued} subscriptions enqueued (${report.pages} pages)`,
          ]);
        });
      }),
    );
}
