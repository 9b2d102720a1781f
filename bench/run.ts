import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { formatTable } from "../cli/text-table";
import { besideBaseline, openBaseline } from "./baseline";
import type { BenchRow } from "./benchmark";

// `npm run bench` runs every benchmark below; `npm run bench -- --only <name>` one of them; `--baseline <git ref>`
// runs each at that commit too, just before ours, and prints its rows beside ours (baseline.ts). Prints one aligned
// table, writes bench/results/<name>.json per benchmark, and exits 1 when a row of ours misses its target.

// Read by the handlers' logger and metrics when their module loads: set before any benchmark is imported, so that
// handler log lines and EMF metrics do not land around the table (the charge worker's process inherits them).
process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
process.env.POWERTOOLS_METRICS_DISABLED = "true";
const { BENCHMARKS } = await import("./benchmarks");

const RESULTS_DIR = new URL("./results/", import.meta.url);

const [cpu] = cpus();
const MACHINE = {
  cpu: cpu?.model.trim() ?? "unknown",
  cores: cpus().length,
  node: process.version,
  os: `${platform()} ${release()}`,
  memoryGb: Number((totalmem() / 1024 ** 3).toFixed(1)),
  /** Other work on the machine skews the figures: the 1-minute load average when the run started. */
  loadAverage: Number(loadavg()[0]?.toFixed(2)),
};

function table(results: readonly { name: string; rows: readonly BenchRow[] }[]): string {
  const lines = results.flatMap(({ name, rows }) =>
    rows.map((row) => [
      name,
      row.case,
      row.result,
      row.target,
      row.met === undefined ? "" : row.met ? "yes" : "NO",
    ]),
  );
  return formatTable(["benchmark", "case", "result", "target", "met"], lines);
}

async function main(): Promise<void> {
  const { only, baseline: ref } = parseArgs({
    options: { only: { type: "string" }, baseline: { type: "string" } },
  }).values;
  const selected =
    only === undefined ? BENCHMARKS : BENCHMARKS.filter((benchmark) => benchmark.name === only);
  if (selected.length === 0) {
    const known = BENCHMARKS.map((benchmark) => benchmark.name).join(", ");
    throw new Error(`no benchmark named ${only} (known: ${known})`);
  }
  const results: { name: string; rows: readonly BenchRow[] }[] = [];
  const missed: BenchRow[] = [];
  await mkdir(RESULTS_DIR, { recursive: true });
  const baseline = ref === undefined ? undefined : await openBaseline(ref);
  try {
    for (const benchmark of selected) {
      const before = await baseline?.rows(benchmark.name);
      console.error(`running ${benchmark.name}: ${benchmark.description}`);
      const rows = await benchmark.run();
      const shown =
        baseline === undefined
          ? rows
          : [
              ...besideBaseline(rows, before, baseline.ref),
              ...(before === undefined ? [] : (benchmark.compare?.(rows, before, baseline.ref) ?? [])),
            ];
      missed.push(...shown.filter((row) => row.met === false));
      results.push({ name: benchmark.name, rows: shown });
      const json = {
        benchmark: benchmark.name,
        description: benchmark.description,
        date: new Date(),
        machine: MACHINE,
        rows,
        ...(baseline === undefined
          ? {}
          : { baseline: { ref: baseline.ref, commit: baseline.commit, rows: before } }),
      };
      await writeFile(new URL(`${benchmark.name}.json`, RESULTS_DIR), `${JSON.stringify(json, null, 2)}\n`);
    }
  } finally {
    await baseline?.close();
  }
  console.log(
    `machine: ${MACHINE.cpu}, ${MACHINE.cores} cores, ${MACHINE.memoryGb} GB, node ${MACHINE.node}, ${MACHINE.os}, ` +
      `load average ${MACHINE.loadAverage} at start`,
  );
  console.log(table(results));
  if (missed.length > 0) process.exitCode = 1;
}

await main();
