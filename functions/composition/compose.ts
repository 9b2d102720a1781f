import type * as z from "zod";
import { loadEnvironment } from "../lambda/environment";
import type { Runtime } from "./runtime";

// The one composition root (README, Layout): what a component is, and compose(), which builds each component a
// function uses once per composition. The components themselves are in components.ts.

/** The variables a composition reads: a Lambda's process.env, or the ones local mode and the ops CLI hand over. */
export type Variables = Readonly<Record<string, string | undefined>>;

/** What tests and local mode may tune beyond the variables: the gateway client's and a webhook's patience. */
export interface CompositionTuning {
  readonly gatewayTimeoutMs?: number;
  readonly gatewayReadRetryMinDelayMs?: number;
  readonly webhookTimeoutMs?: number;
}

/** What a component is built from: the process's runtime, the tuning, and its own variables (checked). */
export interface ComponentContext<V extends z.ZodObject = z.ZodObject> {
  readonly runtime: Runtime;
  readonly tuning: CompositionTuning;
  readonly env: z.infer<V>;
}

/**
 * One adapter of the system: the variables it reads and how it is built. Built once per composition; one with
 * maxAgeMs (what rests on a secret, so a rotation shows within that age) is built again once its build is that old.
 * A failed build is forgotten either way (a missing variable, a Secrets Manager hiccup must not poison a container).
 * A service set's environment is the union of its components' variables, and the CDK binds of a function come from
 * the same component names (lib/function-binds.ts).
 */
export interface Component<N extends string, V extends z.ZodObject, T> {
  readonly name: N;
  readonly variables: V;
  readonly build: (context: ComponentContext<V>) => T;
  readonly maxAgeMs?: number;
}

// The components are plain objects, one top-level constant each, and a service set names the ones it uses: a
// function's bundle then holds only its own components' adapters and SDK clients (esbuild drops the rest: each is made
// by a call marked pure whose arguments are names and arrows only, so nothing of an unused one is kept).
export const component = <const N extends string, V extends z.ZodObject, T>(spec: Component<N, V, T>) => spec;

// biome-ignore lint/suspicious/noExplicitAny: a component of any variables, as the composition holds them.
export type AnyComponent = Component<string, any, unknown>;

/** Builds once and keeps the result; a failed build is forgotten, so the next call tries again. */
function once<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** Builds and reuses the result for maxAgeMs; a failed (rejected) build is forgotten. */
function refreshed<T>(build: () => T, maxAgeMs: number): () => T {
  let cached: { readonly value: T; readonly builtAt: number } | undefined;
  return () => {
    if (cached === undefined || Date.now() - cached.builtAt >= maxAgeMs) {
      const entry = { value: build(), builtAt: Date.now() };
      cached = entry;
      Promise.resolve(entry.value).catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.value;
  };
}

/**
 * The composition root: each component built from its variables the first time a service set asks for it, then
 * reused. A Lambda container composes once over process.env (functions/composition/lambda-entry.ts); local mode,
 * the tests and the ops CLI compose over the variables they hold, so several compositions can live in one process.
 * A component whose variable is missing throws EnvironmentError naming it.
 */
export function compose(runtime: Runtime, variables: Variables, tuning: CompositionTuning = {}) {
  const built = new Map<AnyComponent, () => unknown>();
  // A set's variables are checked on its first use in this composition, not on every invocation.
  const checked = new WeakSet<z.ZodObject>();
  return {
    /** The component, built in this composition. */
    get<T>(component: Component<string, z.ZodObject, T>): T {
      let accessor = built.get(component);
      if (accessor === undefined) {
        const build = () =>
          component.build({ runtime, tuning, env: loadEnvironment(component.variables, variables) });
        accessor = component.maxAgeMs === undefined ? once(build) : refreshed(build, component.maxAgeMs);
        built.set(component, accessor);
      }
      return accessor() as T;
    },
    /** Checks a service set's variables at once, naming every missing or invalid one (EnvironmentError). */
    check(schema: z.ZodObject): void {
      if (checked.has(schema)) return;
      loadEnvironment(schema, variables);
      checked.add(schema);
    },
  };
}

export type Composition = ReturnType<typeof compose>;
