import { randomInt } from "node:crypto";
import { Command, InvalidArgumentError, Option } from "commander";

// `npm run chaos [-- --size N --seed S]`: the chaos run at full size (10,000 subscription-periods by default).
// Prints its seed first, a table at the end, every violation, and exits 1 on any.

const positive = (text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError("must be a positive integer");
  return value;
};

await new Command("chaos")
  .addOption(new Option("--size <n>", "subscription-periods to charge").argParser(positive).default(10_000))
  .addOption(
    new Option("--seed <n>", "seed of every fault and crash (random when unset)").argParser(positive),
  )
  .addOption(new Option("--workers <n>", "concurrent charge workers").argParser(positive).default(4))
  .action(async (flags: { size: number; seed?: number; workers: number }) => {
    // Everything the handlers can log, and their metrics, is captured (not printed) for the leak scan. Read when
    // their modules load: set before the run is imported.
    process.env.POWERTOOLS_LOG_LEVEL ??= "DEBUG";
    process.env.POWERTOOLS_METRICS_DISABLED ??= "false";
    const { runChaos } = await import("../local/chaos/run-chaos");
    const { violationsOf } = await import("../local/chaos/chaos-report");
    const { chaosTable } = await import("../local/chaos/chaos-table");
    const seed = flags.seed ?? randomInt(1, 2 ** 31);
    console.log(`chaos run: seed ${seed}, ${flags.size} subscription-periods (repeat with --seed ${seed})`);
    const report = await runChaos({
      size: flags.size,
      seed,
      workers: flags.workers,
      onProgress: (step) => console.error(`  ${step}`),
    });
    console.log(chaosTable(report));
    const violations = violationsOf(report);
    for (const violation of violations) console.log(`VIOLATION ${violation}`);
    process.exitCode = violations.length === 0 ? 0 : 1;
  })
  .parseAsync();
