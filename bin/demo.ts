import { demoCommand } from "../local/demo/demo-command";
import { createProgress } from "../local/demo/progress";

// `npm run demo`: a scripted month on the local stack (local/demo/run-demo.ts); exit status 0 only if every
// invariant holds.

await demoCommand(async ({ seed, customers }) => {
  // Read by the handlers' logger and metrics when their module loads: set before the stack is imported.
  process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  const { runDemo } = await import("../local/demo/run-demo");
  const progress = createProgress({ write: (line) => console.log(line), tty: process.stdout.isTTY === true });
  const { exitCode } = await runDemo({ seed, customers, progress });
  process.exitCode = exitCode;
}).parseAsync();
