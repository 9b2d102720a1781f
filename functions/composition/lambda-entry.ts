import { type Composition, compose } from "./compose";
import { composedHandler, type HandlerDefinition } from "./handler-definition";
import { createRuntime } from "./runtime";

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
