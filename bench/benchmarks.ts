import { awsCostBenchmark } from "./aws-cost-bench";
import type { Benchmark } from "./benchmark";
import { bundleBenchmark } from "./bundle-bench";
import { chargeThroughputBenchmark } from "./charge-throughput-bench";
import { fanOutBenchmark } from "./fan-out-bench";
import { sandboxBenchmark } from "./sandbox-bench";

// The benchmarks `npm run bench` runs (bench/run.ts), in order, sized by the environment.

/** A size knob from the environment: a positive whole number, or the default. */
function sizeFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

export const BENCHMARKS: readonly Benchmark[] = [
  sandboxBenchmark,
  chargeThroughputBenchmark({
    charges: sizeFromEnv("BENCH_CHARGES", 500),
    worker: {
      concurrency: sizeFromEnv("BENCH_WORKER_CONCURRENCY", 2),
      batchSize: sizeFromEnv("BENCH_WORKER_BATCH", 2),
    },
  }),
  awsCostBenchmark({ charges: sizeFromEnv("BENCH_COST_CHARGES", 200) }),
  bundleBenchmark({ initRuns: sizeFromEnv("BENCH_INIT_RUNS", 20) }),
  fanOutBenchmark({ subscriptions: sizeFromEnv("BENCH_FANOUT", 100_000) }),
];
