/** Sets variables on process.env; the returned function puts back what was there. */
export function setEnvironment(variables: Readonly<Record<string, string>>): () => void {
  const previous = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
