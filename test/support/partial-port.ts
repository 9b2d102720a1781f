/**
 * A port of which a unit test fakes only what the code under test should call: any other method throws, naming
 * itself, so a call the test did not expect fails it rather than passing unseen.
 */
export function partialPort<Port extends object>(methods: Partial<Port>): Port {
  return new Proxy(methods, {
    get(target, name) {
      if (name in target || typeof name !== "string" || name === "then") return Reflect.get(target, name);
      return () => {
        throw new Error(`unexpected call of ${name}`);
      };
    },
  }) as Port;
}
