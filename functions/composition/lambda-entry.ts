import type { Context } from "aws-lambda";
import { observedHandler } from "../lambda/lambda-handler";
import { type Composition, compose } from "./compose";
import { createRuntime } from "./runtime";
import type { ServiceSet } from "./service-set";

// The one entry of every function: its definition (a service set and a run) wrapped in the middleware every
// function shares, over the container's composition on Lambda or over a composition of its own in local mode.

/** What a function runs: its `run` over the services of its set (a row of functions/function-table.ts). */
export interface HandlerDefinition<E, R, S> {
  readonly services: ServiceSet<S>;
  readonly run: (event: E, services: S, context: Context) => Promise<R>;
}

/**
 * The handler over a composition, in the middleware every entry point shares: local mode builds each function this
 * way over its own composition, Lambda over the container's.
 */
export function composedHandler<E, R, S>(
  definition: HandlerDefinition<E, R, S>,
  composition: () => Composition,
) {
  return observedHandler(async (event: E, context: Context) =>
    definition.run(event, await definition.services.from(composition()), context),
  );
}

/** The container's composition over its environment: the one memo of a Lambda container, built on first use. */
let container: Composition | undefined;
const containerComposition = () => {
  container ??= compose(createRuntime(), process.env);
  return container;
};

/** What Lambda calls: the definition over the container's composition. */
export function lambdaHandler<E, R, S>(definition: HandlerDefinition<E, R, S>) {
  return composedHandler(definition, containerComposition);
}
