import * as z from "zod";

// A cold start pays for every zod schema its bundle builds when it loads (each some tens of microseconds on a cold
// VM), yet a first request runs few of them: measured, a get-subscription bundle built 1,863 at load and its first
// request ran 53. So the modules' schemas are declared through lazySchema and built on first use.

/**
 * The schema `build` returns, built the first time anything reads it. What comes back is that schema itself to zod
 * and TypeScript: the same type, methods and fields, `instanceof`, its registry metadata (the OpenAPI document reads
 * descriptions by a schema's identity) and its identity inside the schemas that hold it.
 *
 * How: the object handed out starts with a proxy as its prototype, so the first read of any property reaches the
 * proxy, which builds the schema and then constructs the object in place as a copy of it (its constructor called on
 * the object with the built schema's definition, as zod's own clone does). From then on it is a plain zod schema: no
 * proxy stands between a parse and the schema.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): T {
  const stand = Object.create(
    new Proxy(Object.prototype, {
      get: (_, key, receiver) => Reflect.get(construct(), key, receiver),
      set: (_, key, value, receiver) => Reflect.set(construct(), key, value, receiver),
      has: (_, key) => Reflect.has(construct(), key),
    }),
  ) as T;
  const construct = (): T => {
    const built = build();
    const { constr, def } = built._zod;
    Object.setPrototypeOf(stand, constr.prototype);
    // Called as a function, zod's constructor initialises `this` (zod's init, then its deferred steps).
    (constr as unknown as (this: T, def: unknown) => T).call(stand, def);
    const meta = z.globalRegistry.get(built);
    if (meta !== undefined) z.globalRegistry.add(stand, meta);
    return stand;
  };
  return stand;
}

/** The fields of object schemas (a shape several of them spread), built on first use as lazySchema builds a schema. */
export function lazyShape<T extends z.core.$ZodLooseShape>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
