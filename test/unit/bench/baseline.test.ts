import { describe, expect, it } from "vitest";
import { besideBaseline } from "../../../bench/baseline";
import type { BenchRow } from "../../../bench/benchmark";

// `npm run bench -- --baseline <ref>`: each of our rows is followed by the baseline's row of the same case, named by
// the ref, with no target of its own (only our rows are held to theirs).

const row = (name: string, result: string, met?: boolean): BenchRow => ({
  case: name,
  metrics: { value: result.length },
  result,
  target: met === undefined ? "" : "<= 10",
  ...(met === undefined ? {} : { met }),
});

describe("besideBaseline", () => {
  it("puts the baseline's row of each case after ours, and one of a case we no longer have at the end", () => {
    const ours = [row("WRU per renewal", "15", false), row("reads", "2.29")];
    const theirs = [row("reads", "2.10"), row("WRU per renewal", "25", false), row("a retired case", "7")];
    expect(besideBaseline(ours, theirs, "ef6e2f5")).toEqual([
      ours[0],
      { case: "WRU per renewal @ ef6e2f5", metrics: { value: 2 }, result: "25", target: "" },
      ours[1],
      { case: "reads @ ef6e2f5", metrics: { value: 4 }, result: "2.10", target: "" },
      { case: "a retired case @ ef6e2f5", metrics: { value: 1 }, result: "7", target: "" },
    ]);
  });

  it("leaves our rows alone when the baseline has no such benchmark", () => {
    const ours = [row("bundles", "200 KB", true)];
    expect(besideBaseline(ours, undefined, "HEAD~1")).toEqual(ours);
  });
});
