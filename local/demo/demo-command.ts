import { Command, InvalidArgumentError, Option } from "commander";
import { z } from "zod";
import { seedFrom } from "../../sandbox/shared/prng";
import { MIN_CUSTOMERS } from "./customer-mix";

/** The seed printed by every run; `--seed` replays another. */
export const DEFAULT_DEMO_SEED = 20_270_115;
export const DEFAULT_DEMO_CUSTOMERS = 200;

const demoFlags = z.object({ seed: z.number(), customers: z.number() });
export type DemoFlags = z.infer<typeof demoFlags>;

function customers(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < MIN_CUSTOMERS || value > 5000)
    throw new InvalidArgumentError(`must be a whole number from ${MIN_CUSTOMERS} to 5000`);
  return value;
}

/** `npm run demo [-- --seed N] [--customers N]`. */
export function demoCommand(onRun: (flags: DemoFlags) => Promise<void>): Command {
  return new Command("demo")
    .description(
      "a scripted month on a fresh local stack: sign-ups, trials, faults, renewals, dunning, card updates, a " +
        "refund, upgrades, pauses and cancels, then the summary and our ledger reconciled with the gateway " +
        "sandbox's (exit 1 on any violation)",
    )
    .addOption(
      new Option("--seed <n>", "seed of the customer mix and the sandbox's faults")
        .argParser(seedFrom)
        .default(DEFAULT_DEMO_SEED),
    )
    .addOption(
      new Option("--customers <n>", "customers signing up")
        .argParser(customers)
        .default(DEFAULT_DEMO_CUSTOMERS),
    )
    .action(async (flags: unknown) => onRun(demoFlags.parse(flags)));
}
