// `npx billing …` (bin/billing.js): the ops CLI of cli/. The handlers' logger and metrics read these when their
// modules load, so they are set before the CLI is imported: warnings and errors only, no metrics.
process.env.POWERTOOLS_LOG_LEVEL ??= "WARN";
process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
// The SDK's notice that its releases after January 2027 need Node 22 concerns upgrades, not this pinned version:
// kept off every command's stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const { runBillingCli } = await import("../cli/billing-cli");
process.exitCode = await runBillingCli(process.argv.slice(2));

// A module (top-level await), though it imports nothing statically.
export {};
