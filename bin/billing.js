#!/usr/bin/env node
// `npx billing …`: the ops CLI, built into dist/billing-cli.mjs (scripts/build-cli.ts, run by npm's prepare on
// install and by `npm run billing`), so that it needs Node and the production dependencies only.
try {
  await import("../dist/billing-cli.mjs");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("billing-cli.mjs"))
    throw error;
  process.stderr.write("billing: the CLI is not built: run npm run build:cli\n");
  process.exitCode = 1;
}
