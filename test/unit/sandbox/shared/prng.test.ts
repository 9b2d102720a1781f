import { describe, expect, it } from "vitest";
import { createPrng, deriveSeed, seedFrom } from "../../../../sandbox/shared/prng";

const draw = (seed: number, count: number) => {
  const prng = createPrng(seed);
  return Array.from({ length: count }, () => prng.next());
};

describe("seeded PRNG", () => {
  it("gives the same sequence for the same seed and another for another seed", () => {
    expect(draw(42, 100)).toEqual(draw(42, 100));
    expect(draw(42, 100)).not.toEqual(draw(43, 100));
  });

  it("matches the reference mulberry32 output", () => {
    // First values of the published mulberry32 for seed 1.
    expect(draw(1, 3).map((value) => Math.floor(value * 4_294_967_296))).toEqual([
      2693262067, 11749833, 2265367787,
    ]);
  });

  it("stays in [0, 1) and is roughly uniform", () => {
    const values = draw(7, 20_000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    const belowTenth = values.filter((value) => value < 0.1).length / values.length;
    expect(belowTenth).toBeGreaterThan(0.09);
    expect(belowTenth).toBeLessThan(0.11);
  });

  it("derives independent stable sub-seeds per label", () => {
    expect(deriveSeed(1, "request:a")).toBe(deriveSeed(1, "request:a"));
    expect(deriveSeed(1, "request:a")).not.toBe(deriveSeed(1, "request:b"));
    expect(deriveSeed(1, "request:a")).not.toBe(deriveSeed(2, "request:a"));
  });

  it("reads CLI seeds: integers as is, other text hashed", () => {
    expect(seedFrom("42")).toBe(42);
    expect(seedFrom(42)).toBe(42);
    expect(seedFrom("chaos")).toBe(seedFrom("chaos"));
    expect(seedFrom("chaos")).not.toBe(seedFrom("chaos2"));
  });
});
