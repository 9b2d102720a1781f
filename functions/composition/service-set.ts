import * as z from "zod";
import { lazySchema } from "../shared/lazy-schema";
import type * as COMPONENTS from "./components";
import type { Component, Composition } from "./compose";

/** The name of every component of the composition (functions/composition/components.ts). */
export type ComponentName = {
  [K in keyof typeof COMPONENTS]: (typeof COMPONENTS)[K] extends Component<infer N, z.ZodObject, unknown>
    ? N
    : never;
}[keyof typeof COMPONENTS];

/**
 * What one kind of function needs, as a pick of the composition's components: the build sees only the components it
 * names, so the set's environment (and, in lib/function-binds.ts, its CDK binds and grants) follows from those names,
 * and so does its bundle (only those components' adapters are in it).
 */
export interface ServiceSet<S> {
  readonly components: readonly ComponentName[];
  /** The variables the set reads: the union of its components' variables. */
  readonly environment: z.ZodObject;
  /** The services over a composition (built components are reused; a secret is re-read when its age runs out). */
  from(composition: Composition): Promise<S>;
}

/** A set's components by the names its build uses. */
// biome-ignore lint/suspicious/noExplicitAny: a component of any variables and services.
export type ComponentMap = Readonly<Record<string, Component<ComponentName, any, unknown>>>;

/** What a set's build gets: each of its components as a getter over the composition. */
export type ComponentGetters<C extends ComponentMap> = {
  readonly [K in keyof C]: () => ReturnType<C[K]["build"]>;
};

export function serviceSet<const C extends ComponentMap, S>(
  components: C,
  build: (components: ComponentGetters<C>) => S | Promise<S>,
): ServiceSet<S> & { readonly componentMap: C; readonly build: typeof build } {
  const list = Object.values(components);
  const environment = lazySchema(() =>
    z.object(Object.assign({}, ...list.map((component) => component.variables.shape))),
  );
  return {
    components: [...new Set(list.map((component) => component.name))],
    componentMap: components,
    build,
    environment,
    from: async (composition) => {
      // Every missing variable named at once, before any component is built.
      composition.check(environment);
      const getters = Object.fromEntries(
        Object.entries(components).map(([key, component]) => [key, () => composition.get(component)]),
      ) as ComponentGetters<C>;
      return build(getters);
    },
  };
}

/** A set and some more components: the base set's services, plus what `add` builds from the extra ones. */
export function extended<const B extends ComponentMap, BS, const E extends ComponentMap, ES>(
  base: { readonly componentMap: B; readonly build: (components: ComponentGetters<B>) => BS | Promise<BS> },
  extra: E,
  add: (components: ComponentGetters<E>) => ES | Promise<ES>,
) {
  return serviceSet({ ...base.componentMap, ...extra }, async (components) => ({
    ...(await base.build(components)),
    ...(await add(components)),
  }));
}

/** The services a set builds: `ServicesOf<typeof SERVICE_SETS.billing>`. */
export type ServicesOf<T> = T extends ServiceSet<infer S> ? S : never;
