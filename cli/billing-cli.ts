import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { z } from "zod";
import { redactText } from "../functions/lambda/redaction";
import { addChargeRunCommand } from "./charge-run";
import { addChargesCommands } from "./charges";
import { CliError, type CliIo, type CommandRunner } from "./cli-io";
import { addClockCommands } from "./clock";
import { addCouponsCommands } from "./coupons";
import { addDlqCommands } from "./dlq";
import { addEventsCommands } from "./events";
import { LOCAL_OUTPUTS_FILE } from "./local-outputs";
import { addOpenCommands } from "./open-items";
import { addPricesCommands } from "./prices";
import { addReconcileCommand } from "./reconcile";
import { addReportCommands } from "./report";
import { addSetupCommands } from "./setup";
import { addSubscriptionsCommands } from "./subscriptions";

const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr };

/** One example per command, under its --help: what a person types first (README, Ops CLI). */
export const COMMAND_EXAMPLES: Readonly<Record<string, string>> = {
  "charge-run": "npx billing --local charge-run",
  "subscriptions list": "npx billing --local subscriptions list --status past_due",
  "subscriptions show": "npx billing --local subscriptions show sub_4mjf0mp6q6kny7ba",
  "charges list": "npx billing --local charges list sub_4mjf0mp6q6kny7ba",
  "prices list": "npx billing --local prices list --active",
  "coupons list": "npx billing --local coupons list",
  "coupons show": "npx billing --local coupons show co_8x2kd5q1vm",
  reconcile: "npx billing --local reconcile --from 20270301 --to 20270331",
  "open list": "npx billing --outputs cdk-outputs.json open list --overdue",
  "dlq list": "npx billing --outputs cdk-outputs.json dlq list --queue intake",
  "dlq redrive": "npx billing --outputs cdk-outputs.json --profile prod dlq redrive --queue charge",
  "events list": "npx billing --local events list --subscription sub_4mjf0mp6q6kny7ba",
  "events replay":
    "npx billing --outputs cdk-outputs.json events replay --from 2027-03-01 --to 2027-03-02T06:00Z",
  "clock advance": "npx billing --local clock advance P31D",
  "report revenue": "npx billing --local report revenue --from 2027-03-01 --to 2027-05-31 --chart mrr.svg",
  "report payouts": "npx billing --local report payouts --from 2027-03-01 --to 2027-03-31",
  "events trigger": "npx billing --local events trigger charge.failed",
  setup: "npx billing --outputs cdk-outputs.json setup",
  "api-keys create": "npx billing --outputs cdk-outputs.json --profile prod api-keys create",
};

/** The commands that run something (no subcommands), by their path under the program: `events list`. */
export function leafCommands(command: Command, prefix: readonly string[] = []): [string, Command][] {
  return command.commands.flatMap((child) => {
    const path = [...prefix, child.name()];
    return child.commands.length === 0
      ? [[path.join(" "), child] as [string, Command]]
      : leafCommands(child, path);
  });
}

/** The project's version, as package.json names it. */
const PACKAGE_VERSION = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))).version;

/**
 * `npx billing …`: runs one command and resolves to the exit code (0 ok, 1 an error or a failed check). Nothing is
 * thrown: an expected error prints its message alone, an unexpected one its name and message (redacted), never a
 * stack. Tests call it in-process with buffers as `io`.
 */
export async function runBillingCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode = 0;
  const run: CommandRunner =
    (work) =>
    async (...args) => {
      const command = args.at(-1);
      if (!(command instanceof Command)) throw new Error("commander passes the command last");
      await work(command, {
        io,
        json: command.optsWithGlobals().json === true,
        fail: () => {
          exitCode = 1;
        },
      });
    };
  const program = billingProgram(io, run);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    // Commander has printed its own message (usage errors, --help).
    if (error instanceof CommanderError) return error.exitCode;
    const message =
      error instanceof CliError
        ? error.message
        : `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}${hintFor(error)}`;
    io.stderr.write(`billing: ${redactText(message)}\n`);
    return 1;
  }
}

/** What to do about the AWS SDK's errors an operator meets most (no credentials, no access, another Region). */
const HINTS: readonly (readonly [RegExp, string])[] = [
  [/^CredentialsProviderError$/, "no AWS credentials found: pass --profile <name> or set AWS_PROFILE"],
  [
    /^(ExpiredToken|ExpiredTokenException|TokenRefreshRequired)$/,
    "the AWS session has expired: sign in again",
  ],
  [
    /AccessDenied|^UnrecognizedClientException$/,
    "the operator lacks a permission: see README, Ops CLI, for what it needs",
  ],
  [
    /^(ResourceNotFoundException|QueueDoesNotExist|AWS\.SimpleQueueService\.NonExistentQueue)$/,
    "not found at the target: pass --region if the stacks are in another Region, or write the outputs file again",
  ],
];

/** " — what to do" about an unexpected error, when it is one of HINTS. */
export function hintFor(error: unknown): string {
  if (!(error instanceof Error)) return "";
  const hint = HINTS.find(([name]) => name.test(error.name));
  return hint === undefined ? "" : ` — ${hint[1]}`;
}

/** The CLI's commands, each with its options, its run and an example under its --help. */
export function billingProgram(io: CliIo, run: CommandRunner): Command {
  const program = new Command("billing")
    .description("Ops CLI of the recurring-billing orchestrator: the local stack (npm start) or a deployment")
    .option("--local", `the local stack of npm start (its ${LOCAL_OUTPUTS_FILE})`)
    .option("--local-outputs <file>", "the local stack whose outputs are in this file (implies --local)")
    .option("--outputs <file>", "AWS target: the file cdk deploy --outputs-file wrote")
    .option("--region <region>", "AWS region (default: the stacks' Region output)")
    .option("--profile <profile>", "AWS profile (AWS_PROFILE)")
    .option("--json", "machine-readable output")
    .version(PACKAGE_VERSION, "--version", "the CLI's version (the project's, package.json)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError(
      "(billing --help lists the commands; add --help to a command for its options and an example)",
    );
  addChargeRunCommand(program, run);
  addSubscriptionsCommands(program, run);
  addChargesCommands(program, run);
  addPricesCommands(program, run);
  addCouponsCommands(program, run);
  addReconcileCommand(program, run);
  addOpenCommands(program, run);
  addDlqCommands(program, run);
  addEventsCommands(program, run);
  addReportCommands(program, run);
  addClockCommands(program, run);
  addSetupCommands(program, run);
  for (const [path, command] of leafCommands(program)) {
    const example = COMMAND_EXAMPLES[path];
    if (example !== undefined) command.addHelpText("after", `\nExample:\n  ${example}`);
  }
  return program;
}
