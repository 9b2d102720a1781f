import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { LAMBDA_BUNDLING } from "../lib/lambda-bundling";

/** Where the handlers are, one file each. */
export const HANDLERS_DIR = new URL("../functions/handlers/", import.meta.url);

/** One handler bundled as lib/billing-function.ts has NodejsFunction bundle it, in memory. */
export interface HandlerBundle {
  readonly bytes: Uint8Array;
  /** The AWS SDK packages it requires (external: the runtime provides them), sorted. */
  readonly sdkPackages: readonly string[];
}

/** functions/handlers/<handler>.ts bundled with LAMBDA_BUNDLING (minified CommonJS, the AWS SDK external). */
export async function bundleHandler(handler: string): Promise<HandlerBundle> {
  const { externalModules, mainFields, ...options } = LAMBDA_BUNDLING;
  const result = await build({
    ...options,
    mainFields: [...mainFields],
    external: [...externalModules],
    entryPoints: [fileURLToPath(new URL(`${handler}.ts`, HANDLERS_DIR))],
    bundle: true,
    write: false,
    metafile: true,
    logLevel: "warning",
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild wrote no bundle for ${handler}`);
  const imports = Object.values(result.metafile.outputs).flatMap((out) => out.imports);
  const sdkPackages = [
    ...new Set(imports.filter((i) => i.external && i.path.startsWith("@aws-sdk/")).map((i) => i.path)),
  ].sort();
  return { bytes: output.contents, sdkPackages };
}
