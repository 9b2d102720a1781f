import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";

// The ops CLI as one ES module (dist/billing-cli.mjs), so that `npx billing` runs on Node and the package's
// production dependencies alone: no tsx, nothing from devDependencies (test/integration/cli/installed-cli.test.ts
// checks both). npm's prepare runs it on install; `npm run billing` runs it before each use.

export const CLI_BUNDLE = fileURLToPath(new URL("../dist/billing-cli.mjs", import.meta.url));

export async function buildCli(outfile = CLI_BUNDLE): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: [fileURLToPath(new URL("../bin/billing-cli.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // Dependencies are resolved at run time from node_modules, as any installed package's are.
    packages: "external",
    metafile: true,
    logLevel: "warning",
  });
  return metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli();
