import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";

// The ops CLI as one ES module (dist/billing-cli.mjs), so that `npx billing` runs on Node and the package's
// production dependencies alone: no tsx, nothing from devDependencies (test/integration/scripts/build-cli.test.ts
// checks both). npm's prepare runs it on install; `npm run billing` runs it before each use.

/** Builds dist/billing-cli.mjs; the metafile says what the bundle imports. */
export async function buildCli(): Promise<Metafile> {
  const { metafile } = await build({
    entryPoints: [fileURLToPath(new URL("../bin/billing-cli.ts", import.meta.url))],
    outfile: fileURLToPath(new URL("../dist/billing-cli.mjs", import.meta.url)),
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
