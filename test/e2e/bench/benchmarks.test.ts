import { describe, expect, it } from "vitest";
import { awsCostBenchmark } from "../../../bench/aws-cost-bench";
import type { BenchRow } from "../../../bench/benchmark";
import { bundleBenchmark } from "../../../bench/bundle-bench";
import { chargeThroughputBenchmark } from "../../../bench/charge-throughput-bench";
import { fanOutBenchmark } from "../../../bench/fan-out-bench";

// The benchmarks of `npm run bench` at tiny sizes, so that their code cannot rot: rows well-formed, every charge
// made, the fan-out complete, and never a Scan. Their figures are not held to targets here.

function expectWellFormed(rows: readonly BenchRow[]): void {
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(row.case).not.toBe("");
    expect(row.result).not.toBe("");
    for (const value of Object.values(row.metrics)) expect(Number.isFinite(value)).toBe(true);
    if (row.target === "") expect(row.met).toBeUndefined();
    else expect(typeof row.met).toBe("boolean");
  }
}

const metric = (rows: readonly BenchRow[], index: number, name: string) => rows[index]?.metrics[name];

describe("benchmarks at tiny sizes", () => {
  it("charge-throughput charges every due subscription twice", { timeout: 120_000 }, async () => {
    const rows = await chargeThroughputBenchmark({
      charges: 20,
      worker: { concurrency: 2, batchSize: 5 },
      emulatorSample: 50,
    }).run();
    expectWellFormed(rows);
    expect(metric(rows, 0, "charged")).toBe(20);
    expect(metric(rows, 0, "limitPerSec")).toBe(200);
    expect(metric(rows, 1, "charged")).toBe(20);
    // The worker's own process did the charging: its CPU is measured apart from the emulators'.
    expect(metric(rows, 1, "workerCpuMsPerCharge")).toBeGreaterThan(0);
  });

  it("aws-cost counts the requests of every charge, no Scan", { timeout: 120_000 }, async () => {
    const rows = await awsCostBenchmark({ charges: 20 }).run();
    expectWellFormed(rows);
    expect(metric(rows, 0, "charged")).toBe(20);
    expect(metric(rows, 0, "scans")).toBe(0);
    expect(metric(rows, 0, "writes")).toBeGreaterThanOrEqual(3);
    // Every renewal moves its subscription's due-index entry (a delete and a put) and puts its line in the ledger:
    // the index holds what reconciliation compares, never the line's outbox (its events carry the subscription's
    // view), so the entry is one unit, and delivering the events leaves it be.
    expect(metric(rows, 0, "dueIndexWriteUnits")).toBe(2);
    expect(metric(rows, 0, "ledgerIndexWriteUnits")).toBe(1);
    expect(metric(rows, 1, "events")).toBeGreaterThanOrEqual(1);
    expect(metric(rows, 1, "listIndexWriteUnits")).toBeGreaterThanOrEqual(1);
    expect(metric(rows, 1, "ledgerIndexWriteUnits")).toBeUndefined();
    // Reconciling the days that pay them out: the sign-ups' sales and the renewals', each paid out and its
    // settlement kept (one write each), nothing unlike the ledger.
    expect(metric(rows, 2, "movements")).toBe(40);
    expect(metric(rows, 2, "mismatches")).toBe(0);
    expect(metric(rows, 2, "scans")).toBe(0);
    expect(metric(rows, 2, "writes")).toBeGreaterThanOrEqual(1);
    expect(metric(rows, 3, "ReceiveMessageCommand")).toBeGreaterThan(0);
    expect(metric(rows, 5, "total")).toBeGreaterThan(0);
  });

  it("fan-out enqueues every due subscription from Queries only", { timeout: 120_000 }, async () => {
    const rows = await fanOutBenchmark({ subscriptions: 200 }).run();
    expectWellFormed(rows);
    expect(metric(rows, 1, "enqueued")).toBe(200);
    expect(metric(rows, 1, "queued")).toBe(200);
    expect(metric(rows, 1, "scans")).toBe(0);
    expect(metric(rows, 1, "queries")).toBeGreaterThan(0);
  });

  // process-charges bundles the Powertools, middy (ESM-only) and gateway dependencies: loading the CommonJS bundle
  // shows none of them needs what CommonJS has not got (top-level await, import.meta).
  it("bundles sizes handlers and times their import", { timeout: 120_000 }, async () => {
    const rows = await bundleBenchmark({ initRuns: 1, only: ["get-openapi", "process-charges"] }).run();
    expectWellFormed(rows);
    expect(rows.map((row) => row.case)).toEqual(["get-openapi", "process-charges"]);
    expect(metric(rows, 0, "minifiedBytes")).toBeGreaterThan(10_000);
  });
});
