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
} as const;

/** Minified size a handler bundle should stay under (scripts/bundle-sizes.ts, `npm run bench`). */
export const BUNDLE_BUDGET_KB = 250;

/** Median cold load a handler bundle should stay under (`npm run bench`). */
export const INIT_BUDGET_MS = 60;
