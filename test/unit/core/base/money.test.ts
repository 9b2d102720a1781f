import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  amountProblem,
  currencyDecimals,
  currencyProblem,
  fromCents,
  GATEWAY_CURRENCIES,
  MAX_AMOUNT_CENTS,
  minorUnitCents,
  scaledCents,
  toCents,
} from "../../../../functions/core/base/money";

describe("money", () => {
  it("converts decimal strings to cents and back", () => {
    expect(["0", "1", "1.5", "1.05", "19.90", "99999999.99"].map(toCents)).toEqual([
      0,
      100,
      150,
      105,
      1990,
      MAX_AMOUNT_CENTS,
    ]);
    const usd = (cents: number) => fromCents(cents, "USD");
    expect([0, 100, 150, 105, 1990].map(usd)).toEqual(["0.00", "1.00", "1.50", "1.05", "19.90"]);
    // Written with the currency's decimals: none in KRW and JPY, at most the wire's 2 in BHD.
    expect(fromCents(100_000, "KRW")).toBe("1000");
    expect(fromCents(300, "JPY")).toBe("3");
    expect(fromCents(1234, "BHD")).toBe("12.34");
  });

  it("rejects what is not an amount the gateway takes", () => {
    for (const bad of ["", "1.234", "-1", "1,00", "1e3", " 1", "100000000", "123456789012345678901234567890"])
      expect(() => toCents(bad)).toThrow(RangeError);
    expect(() => fromCents(-1, "USD")).toThrow(RangeError);
    expect(() => fromCents(1.5, "USD")).toThrow(RangeError);
    expect(() => fromCents(MAX_AMOUNT_CENTS + 1, "USD")).toThrow(RangeError);
  });

  it("round-trips every amount up to the limit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT_CENTS }), (cents) => {
        expect(toCents(fromCents(cents, "USD"))).toBe(cents);
      }),
    );
  });

  it("scales exactly where the product passes 2^53", () => {
    // 99999999.99 over a 731-day period with all but one millisecond left.
    const length = 731 * 86_400_000;
    expect(scaledCents(MAX_AMOUNT_CENTS, length - 1, length)).toBe(MAX_AMOUNT_CENTS - 1);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_AMOUNT_CENTS }),
        fc.integer({ min: 1, max: length }),
        (cents, denominator) => {
          const numerator = Math.floor(denominator / 3);
          const scaled = scaledCents(cents, numerator, denominator);
          // floor(c·n/d): scaled·d ≤ c·n < (scaled + 1)·d, checked in bigint.
          const product = BigInt(cents) * BigInt(numerator);
          expect(BigInt(scaled) * BigInt(denominator) <= product).toBe(true);
          expect(BigInt(scaled + 1) * BigInt(denominator) > product).toBe(true);
        },
      ),
    );
  });

  it("reads each currency's minor unit from ICU", () => {
    expect(["KRW", "JPY", "USD", "EUR", "BHD", "KWD"].map(currencyDecimals)).toEqual([0, 0, 2, 2, 3, 3]);
    expect(currencyDecimals("ZZZ")).toBeUndefined();
    // The smallest charge: one won, one cent, and 0.01 where the minor unit is finer than the wire's 2 decimals.
    expect(["KRW", "USD", "BHD"].map(minorUnitCents)).toEqual([100, 1, 1]);
    for (const currency of GATEWAY_CURRENCIES) expect(currencyDecimals(currency)).toBeDefined();
  });

  it("names what is wrong with an amount in its currency, never the amount", () => {
    expect(amountProblem("1000", "KRW")).toBeUndefined();
    expect(amountProblem("19.9", "USD")).toBeUndefined();
    expect(amountProblem("1.25", "BHD")).toBeUndefined();
    const cases: readonly [string, string, string][] = [
      ["1000.55", "KRW", "whole number"],
      ["0.01", "JPY", "whole number"],
      ["19.905", "USD", "at most 2 decimals"],
      ["1.255", "BHD", "at most 2 decimals"],
      ["123456789", "USD", "99999999.99"],
      ["0", "USD", "greater than 0"],
      ["0.00", "USD", "greater than 0"],
      ["007", "USD", "leading zeros"],
      ["1e3", "USD", "decimal amount"],
      ["-5", "USD", "decimal amount"],
    ];
    for (const [amount, currency, message] of cases) {
      const problem = amountProblem(amount, currency);
      expect(problem).toContain(message);
      // (A one-digit amount is in any message with a number.)
      if (amount.length > 1) expect(problem).not.toContain(amount);
    }
  });

  it("bills only the merchant's currencies", () => {
    expect(currencyProblem("KRW", GATEWAY_CURRENCIES)).toBeUndefined();
    expect(currencyProblem("ZZZ", GATEWAY_CURRENCIES)).toContain("ISO 4217");
    expect(currencyProblem("CHF", GATEWAY_CURRENCIES)).toContain("merchant's currencies");
    expect(currencyProblem("CHF", ["CHF"])).toBeUndefined();
  });
});
