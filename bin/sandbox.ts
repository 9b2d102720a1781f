import { stopOnSignals } from "../local/stack/stop-on-signals";
import { describeSandbox, sandboxOptionsFromCli } from "../sandbox/cli";
import { startSandbox } from "../sandbox/server";

// The gateway sandbox alone: `npx tsx bin/sandbox.ts --port 4010`. Ctrl-C (or SIGTERM) stops it cleanly.

try {
  const sandbox = await startSandbox(sandboxOptionsFromCli(process.argv.slice(2), process.env));
  console.log(describeSandbox(sandbox).join("\n"));
  stopOnSignals("sandbox", () => sandbox.close());
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
