import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as SERVICE_SETS from "../functions/composition/service-sets";
import type { AnyFunctionSpec } from "../functions/function-table";

// How every Lambda function is built and sized (lib/billing-function.ts), without CDK: bench/handler-bundle.ts
// bundles the handlers with esbuild the same way, for the benchmark and test/infra/handler-bundles.test.ts.

/** arm64 CPU scales with memory: 512 MB keeps cold starts short. */
export const LAMBDA_MEMORY_MB = 512;

/**
 * esbuild settings of every handler bundle: minified CommonJS for nodejs22.x, the AWS SDK v3 left to the runtime (what
 * NodejsFunction externalises by default for that runtime). CommonJS because the runtime's SDK is CommonJS: an ESM
 * bundle imports it through Node's ESM loader and cjs-module-lexer, which cost ~50 ms of every cold start
 * (`npm run bench -- --only bundles`, README Benchmarks). Sources are still read as ESM (`module`) for tree shaking.
 */
export const LAMBDA_BUNDLING = {
  format: "cjs",
  target: "node22",
  platform: "node",
  minify: true,
  mainFields: ["module", "main"],
  externalModules: ["@aws-sdk/*"],
  /**
   * `import.meta.url` of an ES module bundled into CommonJS is the bundle's own file URL (esbuild leaves it empty):
   * pdfkit's Node build resolves its data files by it when it loads (serve-document).
   */
  define: { "import.meta.url": "__bundle_file_url" },
  banner: 'var __bundle_file_url = require("url").pathToFileURL(__filename).href;',
} as const;

/** Minified size a handler bundle should stay under (scripts/bundle-sizes.ts, `npm run bench`). */
export const BUNDLE_BUDGET_KB = 250;

/** Median cold load a handler bundle should stay under (`npm run bench`). */
export const INIT_BUDGET_MS = 60;

/** Where each function's generated entry module is written (git ignores it). */
export const ENTRY_DIR = fileURLToPath(new URL("../.build/lambda-entries/", import.meta.url));

/**
 * The entry module of a function's bundle, generated from its row of functions/function-table.ts: the handler file's
 * `run` and the row's service set, wrapped by the one Lambda entry. Imports only what this function runs, so its
 * bundle holds only its own set's components (importing the table would pull in every function).
 */
export function lambdaEntrySource(spec: AnyFunctionSpec): string {
  // By its build (`from`): the set itself, or a copy of it with other components (the synth-time checks' tests).
  const set = Object.entries(SERVICE_SETS).find(
    ([, candidate]) => candidate.from === spec.services.from,
  )?.[0];
  if (set === undefined) throw new Error(`${spec.name}: its service set is not one of service-sets.ts`);
  return [
    `// Generated from the ${spec.name} row of functions/function-table.ts (lib/lambda-bundling.ts).`,
    `import { lambdaHandler } from "../../functions/composition/lambda-entry";`,
    `import { ${set} as services } from "../../functions/composition/service-sets";`,
    `import { run } from "../../functions/handlers/${spec.name}";`,
    "export const handler = lambdaHandler({ run, services });",
    "",
  ].join("\n");
}

/**
 * Writes a function's entry module (synth, the bundle benchmark) and answers its path. Written whole or not at all
 * (a temporary file renamed over it), and left alone when unchanged: two synths or bundles at once never read half
 * of one.
 */
export function writeLambdaEntry(spec: AnyFunctionSpec): string {
  mkdirSync(ENTRY_DIR, { recursive: true });
  const path = join(ENTRY_DIR, `${spec.name}.ts`);
  const source = lambdaEntrySource(spec);
  if (existsSync(path) && readFileSync(path, "utf8") === source) return path;
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(temporary, source);
  renameSync(temporary, path);
  return path;
}
