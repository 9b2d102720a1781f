import { describe, expect, it } from "vitest";
import { fromCents, toCents } from "../../../functions/core/money";

describe("money", () => {
  it("converts decimal strings to cents and back", () => {
    expect(["0", "1", "1.5", "1.05", "19.90", "1234567890.99"].map(toCents)).toEqual([
      0, 100, 150, 105, 1990, 123456789099,
    ]);
    expect([0, 100, 150, 105, 1990].map(fromCents)).toEqual(["0", "1", "1.50", "1.05", "19.90"]);
  });

  it("rejects what is not a 2-decimal amount", () => {
    for (const bad of ["", "1.234", "-1", "1,00", "1e3", " 1"])
      expect(() => toCents(bad)).toThrow(RangeError);
    expect(() => fromCents(-1)).toThrow(RangeError);
    expect(() => fromCents(1.5)).toThrow(RangeError);
  });
});
