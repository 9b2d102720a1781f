import { Presets, SingleBar } from "cli-progress";
import type { Command } from "commander";
import { SERVICE_SETS } from "../functions/composition/service-sets";
import { runChargeRun } from "../functions/core/charge-run";
import { type CommandIo, type CommandRunner, emit } from "./cli-io";
import { resolveTarget, withTarget } from "./target";

/** A bar on a terminal only: piped output, --json and a test's buffers stay one clean line. */
function progressBar(out: CommandIo): SingleBar | undefined {
  if (out.json || out.io.stdout !== process.stdout || !process.stdout.isTTY) return undefined;
  // How many are due is known only at the end (the due index is read page by page), so the bar counts up.
  return new SingleBar(
    {
      format: "charge run {bar} {value} subscriptions enqueued ({pages} pages, {duration}s)",
      stream: process.stdout,
      hideCursor: true,
      clearOnComplete: true,
    },
    Presets.shades_classic,
  );
}

/** `charge-run`: the scheduled charge run (runChargeRun), once, against the target, on the target's clock. */
export function addChargeRunCommand(program: Command, run: CommandRunner): void {
  program
    .command("charge-run")
    .description("enqueue one charge message per due subscription, as the hourly schedule does")
    .action(
      run(async (command, out) => {
        await withTarget(await resolveTarget(command), async (session) => {
          const deps = await session.services(SERVICE_SETS.chargeRun);
          const startedAt = deps.clock.now();
          const bar = progressBar(out);
          bar?.start(0, 0, { pages: 0 });
          const report = await runChargeRun(deps, (progress) => {
            bar?.setTotal(progress.enqueued);
            bar?.update(progress.enqueued, { pages: progress.pages });
          });
          bar?.stop();
          emit(out, { at: startedAt.toISOString(), ...report }, () => [
            `charge run at ${startedAt.toISOString()}: ${report.enqueued} subscriptions enqueued (${report.pages} pages)`,
          ]);
        });
      }),
    );
}
