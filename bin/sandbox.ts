import { describeSandbox, sandboxOptionsFromCli } from "../sandbox/cli";
import { startSandbox } from "../sandbox/server";

// The gateway sandbox alone: `npx tsx bin/sandbox.ts --port 4010`. Ctrl-C (or SIGTERM) stops it cleanly.

try {
  const sandbox = await startSandbox(sandboxOptionsFromCli(process.argv.slice(2), process.env));
  console.log(describeSandbox(sandbox).join("\n"));
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    sandbox.close().catch((error: unknown) => {
      console.error("sandbox did not close cleanly:", error);
      process.exitCode = 1;
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
