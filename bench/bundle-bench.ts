import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { BILLING_FUNCTIONS, type FunctionName } from "../functions/function-table";
import { BUNDLE_BUDGET_KB, INIT_BUDGET_MS } from "../lib/lambda-bundling";
import type { Benchmark, BenchRow } from "./benchmark";
import { compareOwnShares, median } from "./cold-load-shares";
import { bundleHandler, type HandlerBundle } from "./handler-bundle";

// P3: every handler bundled as lib/billing-function.ts has NodejsFunction bundle it (lib/lambda-bundling.ts: minified
// CommonJS for node22, the AWS SDK external), its minified and gzipped size against the budget, and its cold module
// init: the median time of `require(bundle)`, as Lambda's runtime loads a CommonJS handler, in fresh `node` processes
// (the AWS SDK comes from node_modules, as the runtime provides it), node's own start not included. Beside it, the
// median time of requiring just the AWS SDK packages the bundle requires, in fresh processes taken in turn with the
// bundle's: the part of the cold load that is the SDK's own, which no change to our code removes.
// With --baseline, a row weighs our share of the cold loads (the load less the SDK's) against the baseline's, and the
// largest bundle against BUNDLE_TARGET_KB.
// Knob: BENCH_INIT_RUNS (processes per bundle, default 20).

// Under node_modules so that the bundles resolve the external AWS SDK from this repository's node_modules.
const OUT_DIR = new URL("../node_modules/.cache/bench-bundles/", import.meta.url);
const REQUIRE_TIMER =
  "const started = performance.now(); for (const m of process.argv.slice(1)) require(m); console.log(performance.now() - started);";

const run = promisify(execFile);

/** The handler's bundle, written under OUT_DIR to be required. */
async function bundle(handler: FunctionName): Promise<HandlerBundle & { file: string }> {
  const built = await bundleHandler(handler);
  const file = fileURLToPath(new URL(`${handler}.cjs`, OUT_DIR));
  await writeFile(file, built.bytes);
  return { ...built, file };
}

/** Milliseconds to require the modules in a fresh node process (module load and init, not node's own start). */
async function requireMs(modules: readonly string[]): Promise<number> {
  const { stdout } = await run(process.execPath, ["-e", REQUIRE_TIMER, ...modules], {
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: "SILENT", POWERTOOLS_METRICS_DISABLED: "true" },
  });
  return Number(stdout.trim());
}

export function bundleBenchmark(options: {
  readonly initRuns: number;
  readonly only?: readonly string[];
}): Benchmark {
  return {
    name: "bundles",
    description: `every handler bundled like NodejsFunction (minified CommonJS, AWS SDK external): size vs ${BUNDLE_BUDGET_KB} KB, median cold load (vs ${INIT_BUDGET_MS} ms) of ${options.initRuns} fresh node processes`,
    async run() {
      await rm(OUT_DIR, { recursive: true, force: true });
      await mkdir(OUT_DIR, { recursive: true });
      const handlers = BILLING_FUNCTIONS.map((spec) => spec.name)
        .filter((handler) => options.only === undefined || options.only.includes(handler))
        .sort();
      const rows: BenchRow[] = [];
      for (const handler of handlers) {
        const { file, bytes, sdkPackages } = await bundle(handler);
        const samples: number[] = [];
        const sdkSamples: number[] = [];
        // Alternately, so that both medians see the same machine: the bundle, then the SDK packages it requires.
        for (let n = 0; n < options.initRuns; n += 1) {
          samples.push(await requireMs([file]));
          if (sdkPackages.length > 0) sdkSamples.push(await requireMs(sdkPackages));
        }
        const gzipBytes = gzipSync(bytes).length;
        const kb = bytes.length / 1024;
        const init = median(samples);
        const sdk = sdkSamples.length === 0 ? 0 : median(sdkSamples);
        const own = Math.max(0, init - sdk);
        const sdkNames = sdkPackages.map((name) => name.slice("@aws-sdk/".length)).join(", ");
        console.error(
          `  ${handler}: ${kb.toFixed(1)} KB, init ${init.toFixed(1)} ms (SDK ${sdk.toFixed(1)} ms)`,
        );
        rows.push({
          case: handler,
          metrics: {
            minifiedBytes: bytes.length,
            gzipBytes,
            initMedianMs: Number(init.toFixed(1)),
            initMinMs: Number(Math.min(...samples).toFixed(1)),
            initRuns: samples.length,
            sdkLoadMedianMs: Number(sdk.toFixed(1)),
            ownInitMs: Number(own.toFixed(1)),
          },
          result:
            `${kb.toFixed(1)} KB min, ${(gzipBytes / 1024).toFixed(1)} KB gzip, cold load ${init.toFixed(0)} ms (median)` +
            (sdkPackages.length === 0
              ? ", no AWS SDK"
              : `; the AWS SDK alone (${sdkNames}): ${sdk.toFixed(0)} ms`) +
            `; ours ${own.toFixed(0)} ms`,
          target: `<= ${BUNDLE_BUDGET_KB} KB min, <= ${INIT_BUDGET_MS} ms`,
          met: kb <= BUNDLE_BUDGET_KB && init <= INIT_BUDGET_MS,
        });
      }
      return rows;
    },
    compare: compareOwnShares,
  };
}
