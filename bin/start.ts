import { startCommand } from "../local/start-options";
import { stopOnSignals } from "../local/stop-on-signals";

// `npm start`: the whole system on this machine (local/local-stack.ts). Ctrl-C (or SIGTERM) stops it cleanly.

await startCommand(async (options) => {
  // Read by the handlers' logger and metrics when their module loads: set before the stack is imported.
  process.env.POWERTOOLS_LOG_LEVEL = options.logLevel.toUpperCase();
  process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
  const { LocalStack } = await import("../local/local-stack");
  const local = await LocalStack.start(options);
  console.log(`merchant api: ${local.url}`);
  console.log(`sandbox: ${local.sandboxUrl}`);
  if (local.generatedApiKey !== undefined) console.log(`api key: ${local.generatedApiKey}`);
  console.log("Ctrl-C stops everything.");
  stopOnSignals("local stack", () => local.close());
}).parseAsync();
