import type { Context } from "aws-lambda";
import { z } from "zod";
import type { Composition } from "../functions/composition/compose";
import { composedHandler, type HandlerDefinition } from "../functions/composition/lambda-entry";
import { BILLING_FUNCTIONS, type FunctionSpec } from "../lib/function-table";
import { invocationContext } from "./lambda-context";

/** What Lambda calls: the wrapped handler a file in functions/handlers/ exports as `handler`. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

const handlerModule = z.object({
  definition: z.custom<HandlerDefinition<unknown, unknown, unknown>>(
    (value) => typeof value === "object" && value !== null && "run" in value && "services" in value,
    "must export its handler definition",
  ),
});

/** Lambda's default for our functions when the table names no timeout (API Gateway's own limit is 29 s). */
const DEFAULT_TIMEOUT_SECONDS = 29;

/**
 * The functions of the deployed app (lib/function-table.ts), invoked in this process as Lambda would: each handler
 * module loaded on its first invocation (a cold start), its definition run in the same middleware as on Lambda over
 * this instance's composition (Lambda's is the container's), with a fresh context per invocation.
 */
export class LambdaFunctions {
  readonly #modules = new Map<string, Promise<LambdaHandler>>();

  constructor(
    readonly composition: Composition,
    readonly specs: readonly FunctionSpec[] = BILLING_FUNCTIONS,
  ) {}

  /** The functions a trigger kind drives, e.g. every "queue" consumer. */
  withTrigger<K extends FunctionSpec["trigger"]["kind"]>(kind: K) {
    return this.specs.flatMap((spec) =>
      spec.trigger.kind === kind
        ? [{ spec, trigger: spec.trigger as Extract<FunctionSpec["trigger"], { kind: K }> }]
        : [],
    );
  }

  async invoke(name: string, event: unknown): Promise<unknown> {
    const spec = this.specs.find((candidate) => candidate.handler === name);
    if (spec === undefined) throw new Error(`no function ${name} in the function table`);
    const handler = await this.#load(name);
    return handler(event, invocationContext(name, spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS));
  }

  #load(name: string): Promise<LambdaHandler> {
    let loading = this.#modules.get(name);
    if (loading === undefined) {
      loading = import(`../functions/handlers/${name}.ts`).then(
        (module: unknown): LambdaHandler =>
          composedHandler(handlerModule.parse(module).definition, () => this.composition),
      );
      this.#modules.set(name, loading);
    }
    return loading;
  }
}
