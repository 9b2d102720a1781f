import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { z } from "zod";
import { type Composition, compose } from "../functions/composition/compose";
import { createRuntime, type Runtime, type RuntimeOptions } from "../functions/composition/runtime";
import type { ServiceSet } from "../functions/composition/service-set";
import * as SERVICE_SETS from "../functions/composition/service-sets";
import type { Clock } from "../functions/core/ports/clock";
import { EnvironmentError, loadEnvironment } from "../functions/lambda/environment";
import { STACK_OUTPUT_VARIABLES, type StackOutputId } from "../lib/stack-outputs";
import { CliError } from "./cli-io";
import { LOCAL_OUTPUTS_FILE, localOutputsSchema } from "./local-outputs";

// Where the CLI acts, always named: the local stack of `npm start` (--local: its .local/outputs.json), or a
// deployment (--outputs: the file `cdk deploy --outputs-file` writes). Reads compose over the target's variables
// with the composition root the functions use, on SDK clients pointed at the target and the operator's
// credentials; what changes state at scale or needs the gateway's secrets is invoked (invoke.ts).

const NO_LOCAL_STACK = "no local stack running: start it with npm start (or pass --outputs for AWS)";

const NO_TARGET =
  "name the target: --local (the stack of npm start) or --outputs <file> (a deployment), e.g. npx billing --local subscriptions list";

/** How an outputs file of the billing stacks is written. */
const WRITE_OUTPUTS = "write it with npx cdk deploy --all --outputs-file cdk-outputs.json and pass that file";

const targetOptionsSchema = z.object({
  local: z.boolean().optional(),
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
  if (!parsed.success)
    throw new CliError(`the outputs file is not what cdk deploy --outputs-file writes: ${WRITE_OUTPUTS}`);
  const variables = Object.values(parsed.data).flatMap((stack) =>
    Object.entries(stack).flatMap(([id, value]) =>
      isOutputId(id) ? [[STACK_OUTPUT_VARIABLES[id], value] as const] : [],
    ),
  );
  if (variables.length === 0) {
    throw new CliError(
      `the outputs file holds none of the billing stacks' outputs (${Object.keys(STACK_OUTPUT_VARIABLES).join(", ")}): ${WRITE_OUTPUTS}`,
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
    throw new CliError(
      `cannot read ${file} (${error instanceof Error ? error.message : String(error)}): check the path and its permissions`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON: pass the file npm start or cdk deploy --outputs-file wrote`);
  }
}

/**
 * The target the global options name, never a default: --outputs (AWS), or --local (the local stack's outputs file,
 * or the one --local-outputs names).
 */
export async function resolveTarget(command: Command): Promise<Target> {
  const options = targetOptionsSchema.parse(command.optsWithGlobals());
  const local = options.local === true || options.localOutputs !== undefined;
  if (options.outputs === undefined && !local) throw new CliError(NO_TARGET);
  if (options.outputs === undefined) {
    if (options.region !== undefined || options.profile !== undefined)
      throw new CliError("--region and --profile apply to an AWS target: pass --outputs <cdk-outputs.json>");
    const source = options.localOutputs ?? LOCAL_OUTPUTS_FILE;
    const parsed = localOutputsSchema.safeParse(await readJson(source, NO_LOCAL_STACK), {
      reportInput: false,
    });
    if (!parsed.success)
      throw new CliError(
        `${source} is not the outputs of npm start: start the stack again (npm start) to rewrite it`,
      );
    return { kind: "local", source, ...parsed.data };
  }
  if (local) throw new CliError("pass either --outputs (AWS) or --local (local stack), not both");
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
  /** Where the target's SDK clients go (region, profile, credentials, endpoints), for clients of the CLI's own. */
  readonly runtimeOptions: TargetRuntimeOptions;
  /** The services of a set over the target's variables; a missing one is named with the file it should come from. */
  services<S>(set: ServiceSet<S>): Promise<S>;
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

/** The runtime's options, and the Lambda endpoint of a local stack (which answers Lambda's Invoke API). */
export type TargetRuntimeOptions = RuntimeOptions & { readonly endpoints?: { readonly lambda?: string } };

/** Where the target's SDK clients go: its region and profile, and a local stack's endpoints and fake credentials. */
function runtimeOptionsOf(
  environment: Readonly<Record<string, string>>,
  clock?: Clock,
): TargetRuntimeOptions {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = environment;
  return {
    region: environment.AWS_REGION,
    profile: environment.AWS_PROFILE,
    credentials:
      accessKeyId === undefined || secretAccessKey === undefined
        ? undefined
        : { accessKeyId, secretAccessKey },
    endpoints: {
      dynamodb: environment.AWS_ENDPOINT_URL_DYNAMODB,
      sqs: environment.AWS_ENDPOINT_URL_SQS,
      secretsManager: environment.AWS_ENDPOINT_URL_SECRETS_MANAGER,
      eventBridge: environment.AWS_ENDPOINT_URL_EVENTBRIDGE,
      lambda: environment.AWS_ENDPOINT_URL_LAMBDA,
    },
    clock,
  };
}

/** A missing or invalid variable, named with the file it should have come from and how to write it again. */
function lacking(target: Target, error: unknown): unknown {
  if (!(error instanceof EnvironmentError)) return error;
  const again =
    target.kind === "local"
      ? "start the stack again (npm start) to rewrite it"
      : `deploy the current stacks and write it again: npx cdk deploy --all --outputs-file ${target.source}`;
  return new CliError(
    `${target.source} lacks what this command needs: ${error.problems.join("; ")}; ${again}`,
  );
}

/**
 * Runs `use` with a runtime pointed at the target (on a local stack's clock) and the composition over the target's
 * variables; the SDK clients are closed at the end.
 */
export async function withTarget<T>(target: Target, use: (session: TargetSession) => Promise<T>): Promise<T> {
  const clock = target.kind === "local" ? await localClock(target) : undefined;
  const runtimeOptions = runtimeOptionsOf(target.environment, clock);
  const runtime = createRuntime(runtimeOptions);
  const composition: Composition = compose(runtime, target.environment);
  try {
    return await use({
      target,
      runtime,
      runtimeOptions,
      services: (set) =>
        set.from(composition).catch((error: unknown) => {
          throw lacking(target, error);
        }),
      environment(schema) {
        try {
          return loadEnvironment(schema, target.environment);
        } catch (error) {
          throw lacking(target, error);
        }
      },
    });
  } finally {
    runtime.close();
  }
}

/** The billing table's repository, as the merchant API's reads get it (TABLE_NAME only). */
export async function repositoryOf(session: TargetSession) {
  return (await session.services(SERVICE_SETS.queries)).repository;
}

/** The coupons as the merchant API's reads get them, and the target's clock (whether a coupon is valid is of its now). */
export async function couponsOf(session: TargetSession) {
  return session.services(SERVICE_SETS.couponQueries);
}

export async function pricesOf(session: TargetSession) {
  return session.services(SERVICE_SETS.priceQueries);
}
