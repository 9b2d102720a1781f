import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { startCommand } from "../local/stack/start-options";
import { stopOnSignals } from "../local/stack/stop-on-signals";
import { describeSandbox } from "../sandbox/cli";

// `npm start`: the whole system on this machine (local/stack/local-stack.ts). Ctrl-C (or SIGTERM) stops it cleanly.

await startCommand(async (options) => {
  // Read by the handlers' logger and metrics when their module loads: set before the stack is imported.
  process.env.POWERTOOLS_LOG_LEVEL = options.logLevel.toUpperCase();
  process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
  const { LocalStack, LOCAL_OUTPUTS_FILE } = await import("../local/stack/local-stack");
  const local = await LocalStack.start(options);
  console.log(`merchant api: ${local.url}`);
  console.log(`sandbox: ${local.sandboxUrl}`);
  if (local.generatedApiKey !== undefined) console.log(`api key: ${local.generatedApiKey}`);
  console.log(`try it: ${local.tryItUrl}`);
  if (options.forwardEvents !== undefined) {
    const { forwardEvents, verificationSnippet } = await import("../local/stack/forward-events");
    const { secret } = await forwardEvents(local.url, local.apiKey, options.forwardEvents);
    console.log(
      `events forwarded to ${options.forwardEvents}, signed by Standard Webhooks; verify them with:`,
    );
    console.log(verificationSnippet(secret));
  }
  // For the ops CLI (npx billing …): where this stack's parts are.
  await mkdir(dirname(LOCAL_OUTPUTS_FILE), { recursive: true });
  await writeFile(LOCAL_OUTPUTS_FILE, `${JSON.stringify(local.outputs(), null, 2)}\n`, { mode: 0o600 });
  console.log(
    [
      "gateway sandbox test merchant (fake credentials):",
      ...describeSandbox(local.stack.sandbox).slice(1),
    ].join("\n"),
  );
  console.log("Ctrl-C stops everything.");
  stopOnSignals("local stack", async () => {
    await rm(LOCAL_OUTPUTS_FILE, { force: true });
    await local.close();
  });
}).parseAsync();
