import * as z from "zod";
import { COMPONENT_VARIABLES, type ComponentName } from "./components";
import type { Component, Composition } from "./compose";
import type * as SERVICE_SETS from "./service-sets";

/**
 * What one kind of function needs, as a pick of the composition's components: the build sees only the components it
 * names, so the set's environment (and, in lib/function-table.ts, its CDK binds and grants) follows from those names,
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
export type ComponentMap = Readonly<Record<string, Component<ComponentName, unknown>>>;

/** What a set's build gets: each of its components as a getter over the composition. */
export type ComponentGetters<C extends ComponentMap> = {
  readonly [K in keyof C]: () => ReturnType<C[K]["build"]>;
};

export function serviceSet<const C extends ComponentMap, S>(
  components: C,
  build: (components: ComponentGetters<C>) => S | Promise<S>,
): ServiceSet<S> & { readonly componentMap: C; readonly build: typeof build } {
  const list = Object.values(components);
  const environment = z.object(
    Object.assign({}, ...list.map((component) => COMPONENT_VARIABLES[component.name].shape)),
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
  add: (components: ComponentGetters<E>) => ES,
) {
  return serviceSet({ ...base.componentMap, ...extra }, async (components) => ({
    ...(await base.build(components)),
    ...add(components),
  }));
}

export type ServiceSetName = keyof typeof SERVICE_SETS;
/** The services a set builds. */
export type ServicesOf<N extends ServiceSetName> =
  (typeof SERVICE_SETS)[N] extends ServiceSet<infer S> ? S : never;
