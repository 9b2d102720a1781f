import type { Context } from "aws-lambda";
import type { Composition } from "../../functions/composition/compose";
import { composedHandler } from "../../functions/composition/lambda-entry";
import { type AnyFunctionSpec, BILLING_FUNCTIONS, type FunctionSpec } from "../../functions/function-table";
import { invocationContext } from "./lambda-context";

/** What Lambda calls: a function's run wrapped in the middleware every function shares. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** Lambda's default for our functions when the table names no timeout (API Gateway's own limit is 29 s). */
const DEFAULT_TIMEOUT_SECONDS = 29;

/**
 * The functions of the deployed app (functions/function-table.ts), invoked in this process as Lambda would: each
 * row's run in the same middleware as on Lambda, over this instance's composition (Lambda's is the container's),
 * with a fresh context per invocation.
 */
export class LambdaFunctions {
  readonly #handlers = new Map<string, LambdaHandler>();

  constructor(
    readonly composition: Composition,
    readonly specs: readonly AnyFunctionSpec[] = BILLING_FUNCTIONS,
  ) {}

  /** The functions a trigger kind drives, e.g. every "queue" consumer. */
  withTrigger<K extends AnyFunctionSpec["trigger"]["kind"]>(kind: K) {
    return this.specs.flatMap((spec) =>
      spec.trigger.kind === kind
        ? [{ spec, trigger: spec.trigger as Extract<AnyFunctionSpec["trigger"], { kind: K }> }]
        : [],
    );
  }

  /** A row of the table as a typed call (its event in, its answer out), through the same middleware. */
  invoker<E, R, S>(spec: FunctionSpec<E, R, S>): (event: E) => Promise<R> {
    const handler = this.#handlerOf(spec) as (event: E, context: Context) => Promise<R>;
    return (event) =>
      handler(event, invocationContext(spec.name, spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS));
  }

  invoke(name: string, event: unknown): Promise<unknown> {
    const spec = this.specs.find((candidate) => candidate.name === name);
    if (spec === undefined) throw new Error(`no function ${name} in the function table`);
    return this.invoker(spec)(event);
  }

  /** Each function's handler made once, on its first invocation (a cold start), then reused. */
  #handlerOf<E, R, S>(spec: FunctionSpec<E, R, S>): LambdaHandler {
    let handler = this.#handlers.get(spec.name);
    if (handler === undefined) {
      handler = composedHandler(spec, () => this.composition) as LambdaHandler;
      this.#handlers.set(spec.name, handler);
    }
    return handler;
  }
}
