import { describe, expect, it } from "vitest";
import type { BenchRow } from "../../../bench/benchmark";
import { compareOwnShares } from "../../../bench/cold-load-shares";

// `npm run bench -- --only bundles --baseline <ref>`: our share of the cold loads (each function's median load less
// the AWS SDK's) over the functions both commits bundle, held to half the baseline's, and the largest bundle.

const bundle = (name: string, initMedianMs: number, sdkLoadMedianMs: number, kb = 150): BenchRow => ({
  case: name,
  metrics: { minifiedBytes: kb * 1024, initMedianMs, sdkLoadMedianMs },
  result: "",
  target: "",
});

describe("compareOwnShares", () => {
  it("weighs the median and the worst own share over the functions both have, against half the baseline's", () => {
    const baseline = [
      bundle("a", 150, 100),
      bundle("b", 180, 100),
      bundle("c", 200, 100),
      bundle("retired", 900, 0),
    ];
    const ours = [bundle("a", 120, 100), bundle("b", 130, 100), bundle("c", 140, 90), bundle("new", 900, 0)];
    const [shares] = compareOwnShares(ours, baseline, "ef6e2f5");
    expect(shares).toMatchObject({
      case: "own share of a cold load, 3 functions",
      metrics: { ownMedianMs: 30, ownMaxMs: 50, baselineOwnMedianMs: 80, baselineOwnMaxMs: 100 },
      target: "<= 40 ms, <= 50 ms (half of ef6e2f5)",
      met: true,
    });
    const slower = [bundle("a", 120, 100), bundle("b", 130, 100), bundle("c", 160, 100)];
    expect(compareOwnShares(slower, baseline, "ef6e2f5")[0]?.met).toBe(false);
  });

  it("counts a load faster than the SDK's own as no share of ours, and holds the largest bundle to 200 KB", () => {
    const [shares, largest] = compareOwnShares([bundle("a", 90, 100, 201)], [bundle("a", 150, 100)], "ref");
    expect(shares?.metrics.ownMedianMs).toBe(0);
    expect(largest).toMatchObject({ case: "largest bundle", result: "201.0 KB min", met: false });
  });
});
