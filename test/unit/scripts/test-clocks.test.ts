import { describe, expect, it } from "vitest";
import { clockForCommit, faketimeOffset, TEST_CLOCKS } from "../../../scripts/test-clocks";

describe("the clocks the suite runs under", () => {
  it("come round in turn, one commit after another", () => {
    const names = Array.from(
      { length: TEST_CLOCKS.length * 2 },
      (_, count) => clockForCommit(count + 41).name,
    );
    expect(new Set(names.slice(0, TEST_CLOCKS.length))).toEqual(new Set(TEST_CLOCKS.map(({ name }) => name)));
    expect(names.slice(TEST_CLOCKS.length)).toEqual(names.slice(0, TEST_CLOCKS.length));
  });

  it("are faketime offsets from the real clock, ahead or behind", () => {
    const now = new Date("2026-12-08T02:30:00.400Z");
    expect(faketimeOffset("2026-12-31T23:50:00Z", now)).toBe(`+${23 * 86_400 + 21 * 3_600 + 20 * 60}s`);
    expect(faketimeOffset("2026-12-08T02:29:00Z", now)).toBe("-60s");
  });

  it("name real time zones and instants", () => {
    for (const { at, timeZone } of TEST_CLOCKS) {
      expect(Number.isNaN(Date.parse(at))).toBe(false);
      expect(() => new Intl.DateTimeFormat("en", { timeZone })).not.toThrow();
    }
  });
});
