import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { z } from "zod";
import { createDynamoDbBillingRepository } from "../functions/adapters/dynamodb-billing-repository";
import type { Clock } from "../functions/core/ports";
import { EnvironmentError, loadEnvironment, queryEnvironment } from "../functions/runtime/environment";
import { createRuntime, type Runtime } from "../functions/runtime/services-from-env";
import { STACK_OUTPUT_VARIABLES, type StackOutputId } from "../lib/stack-outputs";
import { LOCAL_OUTPUTS_FILE, localOutputsSchema } from "../local/local-outputs";
import { setEnvironment } from "../local/process-environment";
import { CliError } from "./cli-io";

// Where the CLI acts: the local stack of `npm start` (its .local/outputs.json), or a deployment (the file `cdk
// deploy --outputs-file` writes). Either way the commands get what a Lambda gets: variables on process.env and a
// runtime of SDK clients, so the handlers' own builders wire them.

const NO_LOCAL_STACK = "no local stack running: start it with npm start (or pass --outputs for AWS)";

const targetOptionsSchema = z.object({
  localOutputs: z.string().optional(),
  outputs: z.string().optional(),
  region: z.string().optional(),
  profile: z.string().optional(),
});

export type Target =
  | {
      readonly kind: "local";
      readonly source: string;
      readonly environment: Readonly<Record<string, string>>;
      readonly apiUrl: string;
      readonly apiKey: string;
      readonly sandboxUrl: string;
    }
  | {
      readonly kind: "aws";
      readonly source: string;
      readonly environment: Readonly<Record<string, string>>;
      readonly apiUrl?: string;
    };

/** `cdk deploy --outputs-file`: {"<stack>": {"<output id>": "<value>"}}. */
const cdkOutputsSchema = z.record(z.string(), z.record(z.string(), z.string()));

const isOutputId = (id: string): id is StackOutputId => id in STACK_OUTPUT_VARIABLES;

/**
 * The variables of the billing stacks' outputs (lib/stack-outputs.ts), whatever stacks the file holds; the API URL
 * apart, since no Lambda reads it. Unknown outputs (other stacks) are ignored.
 */
export function environmentFromCdkOutputs(outputs: unknown): {
  readonly environment: Record<string, string>;
  readonly apiUrl?: string;
} {
  const parsed = cdkOutputsSchema.safeParse(outputs, { reportInput: false });
  if (!parsed.success) throw new CliError("the outputs file is not what cdk deploy --outputs-file writes");
  const variables = Object.values(parsed.data).flatMap((stack) =>
    Object.entries(stack).flatMap(([id, value]) =>
      isOutputId(id) ? [[STACK_OUTPUT_VARIABLES[id], value] as const] : [],
    ),
  );
  if (variables.length === 0) {
    throw new CliError(
      `the outputs file holds none of the billing stacks' outputs (${Object.keys(STACK_OUTPUT_VARIABLES).join(", ")})`,
    );
  }
  const { API_URL: apiUrl, ...environment } = Object.fromEntries(variables);
  return { environment, apiUrl };
}

async function readJson(file: string, missing: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") throw new CliError(missing);
    throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON`);
  }
}

/** The target the global options name: --outputs (AWS) or the local stack (--local-outputs or the default file). */
export async function resolveTarget(command: Command): Promise<Target> {
  const options = targetOptionsSchema.parse(command.optsWithGlobals());
  if (options.outputs === undefined) {
    if (options.region !== undefined || options.profile !== undefined)
      throw new CliError("--region and --profile apply to an AWS target: pass --outputs <cdk-outputs.json>");
    const source = options.localOutputs ?? LOCAL_OUTPUTS_FILE;
    const parsed = localOutputsSchema.safeParse(await readJson(source, NO_LOCAL_STACK), {
      reportInput: false,
    });
    if (!parsed.success) throw new CliError(`${source} is not the outputs of npm start`);
    return { kind: "local", source, ...parsed.data };
  }
  if (options.localOutputs !== undefined)
    throw new CliError("pass either --outputs (AWS) or --local-outputs (local stack), not both");
  const source = options.outputs;
  const { environment, apiUrl } = environmentFromCdkOutputs(
    await readJson(source, `${source} not found: write it with cdk deploy --outputs-file ${source}`),
  );
  return {
    kind: "aws",
    source,
    environment: {
      ...environment,
      ...(options.region === undefined ? {} : { AWS_REGION: options.region }),
      ...(options.profile === undefined ? {} : { AWS_PROFILE: options.profile }),
    },
    apiUrl,
  };
}

export interface TargetSession {
  readonly target: Target;
  readonly runtime: Runtime;
  /** The variables `schema` names, checked; a missing one is named with the file it should have come from. */
  environment<S extends z.ZodObject>(schema: S): z.output<S>;
}

/**
 * The local stack's shared clock as the command starts: the CLI's "now" is the stack's, wherever its clock was
 * moved (a stack started with realTime false stands still between moves; one following the wall clock ticks once a
 * second, so a command of a few seconds is as close as the stack itself).
 */
async function localClock(target: Extract<Target, { kind: "local" }>): Promise<Clock> {
  let body: unknown;
  try {
    const response = await fetch(new URL("/sandbox/clock", target.sandboxUrl));
    body = await response.json();
  } catch {
    throw new CliError(`the local stack of ${target.source} does not answer: ${NO_LOCAL_STACK}`);
  }
  const { now } = z.object({ now: z.iso.datetime() }).parse(body);
  return { now: () => new Date(now) };
}

/**
 * Runs `use` with the target's variables on process.env (restored afterwards) and a runtime built from them by
 * createRuntime(), as a Lambda container gets; its SDK clients are closed at the end.
 */
export async function withTarget<T>(target: Target, use: (session: TargetSession) => Promise<T>): Promise<T> {
  const clock = target.kind === "local" ? await localClock(target) : undefined;
  const restoreEnvironment = setEnvironment(target.environment);
  const base = createRuntime();
  const runtime: Runtime = clock === undefined ? base : { ...base, clock };
  try {
    return await use({
      target,
      runtime,
      environment(schema) {
        try {
          return loadEnvironment(schema, target.environment);
        } catch (error) {
          if (!(error instanceof EnvironmentError)) throw error;
          throw new CliError(`${target.source} lacks what this command needs: ${error.problems.join("; ")}`);
        }
      },
    });
  } finally {
    for (const client of [runtime.dynamo, runtime.sqs, runtime.eventBridge, runtime.secretsManager])
      client.destroy();
    restoreEnvironment();
  }
}

/** The billing table's repository, as the merchant API's reads get it (TABLE_NAME only). */
export function repositoryOf(session: TargetSession) {
  const { TABLE_NAME } = session.environment(queryEnvironment);
  return createDynamoDbBillingRepository({
    client: session.runtime.dynamo,
    tableName: TABLE_NAME,
    clock: session.runtime.clock,
  });
}
