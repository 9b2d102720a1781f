import { build } from "esbuild";
import { type FunctionName, functionNamed } from "../functions/function-table";
import { LAMBDA_BUNDLING, writeLambdaEntry } from "../lib/lambda-bundling";

/** One handler bundled as lib/billing-function.ts has NodejsFunction bundle it, in memory. */
export interface HandlerBundle {
  readonly bytes: Uint8Array;
  /** The AWS SDK packages it requires (external: the runtime provides them), sorted. */
  readonly sdkPackages: readonly string[];
}

/** A function's generated entry bundled with LAMBDA_BUNDLING (minified CommonJS, the AWS SDK external). */
export async function bundleHandler(handler: FunctionName): Promise<HandlerBundle> {
  const { externalModules, mainFields, banner, ...options } = LAMBDA_BUNDLING;
  const result = await build({
    ...options,
    banner: { js: banner },
    mainFields: [...mainFields],
    external: [...externalModules],
    entryPoints: [writeLambdaEntry(functionNamed(handler))],
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
