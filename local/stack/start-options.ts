import { Command, InvalidArgumentError, Option } from "commander";
import { z } from "zod";
import { parseFaultsFlag } from "../../sandbox/cli";
import type { FaultConfigOrSettings } from "../../sandbox/faults/faults";
import { seedFrom } from "../../sandbox/shared/prng";
import { DEFAULT_JUMP_RESOLUTION } from "../lambda/scheduler";
import type { LocalStackOptions } from "./local-stack";

/** Log levels of the handlers' Powertools logger. */
const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

function port(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65_535) throw new InvalidArgumentError("must be a port number, 0–65535");
  return value;
}

function faults(text: string) {
  try {
    return parseFaultsFlag(text);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? (error.message.split("\n")[0] ?? "") : "invalid");
  }
}

const startFlags = z.object({
  port: z.number(),
  sandboxPort: z.number(),
  apiKey: z.string().optional(),
  data: z.string().optional(),
  dynamodbEndpoint: z.string().optional(),
  seed: z.number().optional(),
  faults: z.custom<FaultConfigOrSettings>().optional(),
  logLevel: z.enum(LOG_LEVELS),
  jumpResolution: z.string(),
  forwardEvents: z.string().optional(),
});

/** --dynamodb-endpoint: the whole stack on another DynamoDB (e.g. DynamoDB Local) instead of dynalite. */
export const dynamoDbEndpointOption = () =>
  new Option(
    "--dynamodb-endpoint <url>",
    "a DynamoDB endpoint instead of dynalite (e.g. DynamoDB Local)",
  ).env("BILLING_DYNAMODB_ENDPOINT");

export interface StartOptions extends LocalStackOptions {
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Every event is POSTed here too, signed (a webhook endpoint of local mode's own). */
  readonly forwardEvents?: string;
}

/**
 * `npm start [-- flags]`: flags first, then PORT, SANDBOX_PORT and BILLING_API_KEY from the environment, then the
 * defaults (3000, 4010, a generated key).
 */
export function startCommand(onStart: (options: StartOptions) => Promise<void>): Command {
  return new Command("start")
    .description(
      "the billing system on this machine: emulators, gateway sandbox, merchant API, workers, scheduler",
    )
    .addOption(
      new Option("--port <port>", "merchant API port (0: any free)")
        .env("PORT")
        .argParser(port)
        .default(3000),
    )
    .addOption(
      new Option("--sandbox-port <port>", "gateway sandbox port (0: any free)")
        .env("SANDBOX_PORT")
        .argParser(port)
        .default(4010),
    )
    .addOption(
      new Option("--api-key <key>", "merchant API key (generated when unset)").env("BILLING_API_KEY"),
    )
    .option("--data <dir>", "keep DynamoDB data in this directory (in memory by default)")
    .addOption(dynamoDbEndpointOption())
    .addOption(new Option("--seed <n>", "seed of the sandbox's randomness").argParser(seedFrom))
    .addOption(
      new Option("--faults <json>", "sandbox fault injection, e.g. '{\"errorRate\":0.1}'").argParser(faults),
    )
    .addOption(new Option("--log-level <level>", "handlers' log level").choices(LOG_LEVELS).default("warn"))
    .addOption(
      new Option(
        "--jump-resolution <duration>",
        "coarsest spacing of one schedule's fires during a clock jump",
      ).default(DEFAULT_JUMP_RESOLUTION),
    )
    .option(
      "--forward-events <url>",
      "POST every event to this URL too, signed by Standard Webhooks (the secret and a snippet are printed)",
    )
    .action(async (flags: unknown) => {
      const { data, dynamodbEndpoint, ...rest } = startFlags.parse(flags);
      await onStart({ ...rest, dataDir: data, dynamoDbEndpoint: dynamodbEndpoint });
    });
}
