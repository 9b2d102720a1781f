import { describe, expect, it } from "vitest";
import {
  addMonthsClamped,
  billingPeriod,
  periodIndexAt,
} from "../../../../functions/core/base/billing-period";

const utc = (iso: string) => new Date(iso);
const day = (date: Date) => date.toISOString().slice(0, 10);

describe("addMonthsClamped", () => {
  it("clamps the 31st to the end of short months and returns to the 31st", () => {
    const anchor = utc("2027-01-31T09:30:00Z");
    expect([1, 2, 3, 4].map((m) => day(addMonthsClamped(anchor, m)))).toEqual([
      "2027-02-28",
      "2027-03-31",
      "2027-04-30",
      "2027-05-31",
    ]);
  });

  it("uses Feb 29 in leap years and keeps the time of day", () => {
    const next = addMonthsClamped(utc("2028-01-30T23:59:59.500Z"), 1);
    expect(next.toISOString()).toBe("2028-02-29T23:59:59.500Z");
  });

  it("crosses year boundaries", () => {
    expect(day(addMonthsClamped(utc("2026-11-15T00:00:00Z"), 3))).toBe("2027-02-15");
    expect(day(addMonthsClamped(utc("2026-12-31T00:00:00Z"), 14))).toBe("2028-02-29");
  });
});

describe("billingPeriod", () => {
  it("anchors a 10-month interval on the sign-up day", () => {
    const anchor = utc("2026-03-31T12:00:00Z");
    const periods = [0, 1, 2].map((i) => billingPeriod(anchor, 10, i));
    expect(periods.map((p) => [day(p.start), day(p.end)])).toEqual([
      ["2026-03-31", "2027-01-31"],
      ["2027-01-31", "2027-11-30"],
      ["2027-11-30", "2028-09-30"],
    ]);
  });

  it("makes consecutive periods contiguous", () => {
    const anchor = utc("2027-08-31T00:00:00Z");
    for (let i = 0; i < 24; i += 1) {
      expect(billingPeriod(anchor, 1, i).end).toEqual(billingPeriod(anchor, 1, i + 1).start);
    }
  });

  it("rejects intervals outside 1–36 months", () => {
    expect(() => billingPeriod(utc("2027-01-01T00:00:00Z"), 0, 0)).toThrow(/interval_months/);
    expect(() => billingPeriod(utc("2027-01-01T00:00:00Z"), 37, 0)).toThrow(/interval_months/);
    expect(() => billingPeriod(utc("2027-01-01T00:00:00Z"), 1.5, 0)).toThrow(/interval_months/);
  });
});

it("bills an annual plan from Feb 29 on Feb 28 of the years after, and a 36-month plan three years on", () => {
  const leapDay = utc("2028-02-29T08:00:00Z");
  expect([1, 2, 4].map((index) => billingPeriod(leapDay, 12, index).start)).toEqual([
    utc("2029-02-28T08:00:00Z"),
    utc("2030-02-28T08:00:00Z"),
    utc("2032-02-29T08:00:00Z"),
  ]);
  expect(billingPeriod(utc("2027-03-31T00:00:00Z"), 36, 0).end).toEqual(utc("2030-03-31T00:00:00Z"));
});

describe("periodIndexAt", () => {
  const anchor = utc("2027-01-31T10:00:00Z");

  it("finds the period containing an instant, bounds inclusive at the start", () => {
    expect(periodIndexAt(anchor, 1, utc("2027-01-31T10:00:00Z"))).toBe(0);
    expect(periodIndexAt(anchor, 1, utc("2027-02-28T09:59:59Z"))).toBe(0);
    expect(periodIndexAt(anchor, 1, utc("2027-02-28T10:00:00Z"))).toBe(1);
    expect(periodIndexAt(anchor, 1, utc("2027-03-30T00:00:00Z"))).toBe(1);
    expect(periodIndexAt(anchor, 1, utc("2027-03-31T10:00:00Z"))).toBe(2);
  });

  it("agrees with billingPeriod over several years of every interval", () => {
    for (let interval = 1; interval <= 10; interval += 1) {
      for (let i = 0; i < 30; i += 1) {
        const period = billingPeriod(anchor, interval, i);
        expect(periodIndexAt(anchor, interval, period.start)).toBe(i);
        expect(periodIndexAt(anchor, interval, new Date(period.end.getTime() - 1))).toBe(i);
      }
    }
  });
});
