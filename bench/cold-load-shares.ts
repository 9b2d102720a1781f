import type { BenchRow } from "./benchmark";

// The bundles benchmark against a baseline (`--baseline`): our share of each cold load (the load less the AWS SDK's
// own), over the functions both commits have, and the largest bundle.

/** What issue 41 asks of every bundle; BUNDLE_BUDGET_KB (lib/lambda-bundling.ts) is each row's budget today. */
export const BUNDLE_TARGET_KB = 200;

export const median = (values: readonly number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Our own share of a function's cold load: its median load less the AWS SDK's own (older runs' metrics too). */
const ownShareOf = (row: BenchRow): number | undefined => {
  const { initMedianMs, sdkLoadMedianMs } = row.metrics;
  return initMedianMs === undefined || sdkLoadMedianMs === undefined
    ? undefined
    : Math.max(0, initMedianMs - sdkLoadMedianMs);
};

/** The median and the largest own share over the functions both runs bundled. */
function ownShares(rows: readonly BenchRow[], cases: ReadonlySet<string>) {
  const shares = rows
    .filter((row) => cases.has(row.case))
    .map(ownShareOf)
    .filter((share) => share !== undefined);
  return { median: median(shares), max: Math.max(...shares), count: shares.length };
}

/**
 * Our share of the cold loads against the baseline's, over the functions both have: the median and the worst
 * function, each held to half the baseline's (issue 41), and the largest bundle.
 */
export function compareOwnShares(
  ours: readonly BenchRow[],
  baseline: readonly BenchRow[],
  ref: string,
): BenchRow[] {
  const cases = new Set(
    baseline.map((row) => row.case).filter((name) => ours.some((row) => row.case === name)),
  );
  const now = ownShares(ours, cases);
  const before = ownShares(baseline, cases);
  const largestKb = Math.max(...ours.map((row) => (row.metrics.minifiedBytes ?? 0) / 1024));
  return [
    {
      case: `own share of a cold load, ${now.count} functions`,
      metrics: {
        ownMedianMs: now.median,
        ownMaxMs: now.max,
        baselineOwnMedianMs: before.median,
        baselineOwnMaxMs: before.max,
      },
      result: `median ${now.median.toFixed(0)} ms, max ${now.max.toFixed(0)} ms; at ${ref}: median ${before.median.toFixed(0)} ms, max ${before.max.toFixed(0)} ms`,
      target: `<= ${(before.median / 2).toFixed(0)} ms, <= ${(before.max / 2).toFixed(0)} ms (half of ${ref})`,
      met: now.median <= before.median / 2 && now.max <= before.max / 2,
    },
    {
      case: "largest bundle",
      metrics: { largestKb },
      result: `${largestKb.toFixed(1)} KB min`,
      target: `<= ${BUNDLE_TARGET_KB} KB`,
      met: largestKb <= BUNDLE_TARGET_KB,
    },
  ];
}
