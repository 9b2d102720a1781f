import { describe, expect, it } from "vitest";
import {
  dayRange,
  formatDay,
  formatInstant,
  formatRecordTime,
  parseDayOption,
  parseInstantOption,
} from "../../../cli/dates";

describe("the CLI's one form of time", () => {
  it("prints instants in UTC to the minute, the zone stated", () => {
    expect(formatInstant("2027-03-01T14:05:59.999Z")).toBe("2027-03-01 14:05Z");
    expect(formatInstant("2027-03-01T23:05:00+09:00")).toBe("2027-03-01 14:05Z");
    expect(formatInstant(new Date(Date.UTC(2027, 0, 1)))).toBe("2027-01-01 00:00Z");
  });

  it("prints the gateway's YYYYMMDDHHMMSS (Korea time) in the same form, and its days as ISO dates", () => {
    expect(formatRecordTime("20270301090500")).toBe("2027-03-01 00:05Z");
    expect(formatRecordTime("20270301000000")).toBe("2027-02-28 15:00Z");
    expect(formatRecordTime("2027-03-01T00:05:00.000Z")).toBe("2027-03-01 00:05Z");
    expect(formatDay("20270301")).toBe("2027-03-01");
  });
});

describe("instant options", () => {
  it.each([
    ["2027-03-01", "2027-03-01T00:00:00.000Z"],
    ["2027-03-01T14:05Z", "2027-03-01T14:05:00.000Z"],
    ["2027-03-01 14:05Z", "2027-03-01T14:05:00.000Z"],
    ["2027-03-01T14:05:07.250Z", "2027-03-01T14:05:07.250Z"],
    ["2027-03-01T23:05+09:00", "2027-03-01T14:05:00.000Z"],
    ["2027-03-01T23:05:00+0900", "2027-03-01T14:05:00.000Z"],
  ])("reads %s as %s", (value, instant) => {
    expect(parseInstantOption("--from", value)).toBe(instant);
  });

  it("refuses anything else with the option, the value and what to type", () => {
    expect(() => parseInstantOption("--from", "yesterday")).toThrow(
      '--from "yesterday" is not an ISO 8601 date or instant: type an ISO 8601 date or instant, e.g. 2027-03-01 (midnight UTC), 2027-03-01T14:05Z, 2027-03-01 14:05Z or 2027-03-01T23:05+09:00',
    );
    expect(() => parseInstantOption("--to", "2027-03-01T14:05")).toThrow(
      '--to "2027-03-01T14:05" has no zone (add Z for UTC)',
    );
    expect(() => parseInstantOption("--to", "2027-02-30")).toThrow("is not a calendar date");
    expect(() => parseInstantOption("--to", "2027-03-01T24:00Z")).toThrow("is not a valid date and time");
  });
});

describe("day options (reconcile)", () => {
  it("reads ISO dates and the gateway's YYYYMMDD alike", () => {
    expect(parseDayOption("--from", "2027-03-01")).toBe("20270301");
    expect(parseDayOption("--from", "20270301")).toBe("20270301");
  });

  it("refuses what is no calendar day, saying how to type one", () => {
    expect(() => parseDayOption("--to", "20270230")).toThrow(
      '--to "20270230" is not a calendar day: type it as 2027-03-01 or 20270301',
    );
    expect(() => parseDayOption("--to", "March 1")).toThrow("is not a calendar day");
  });

  it("spans the days of a period, both ends included, across months", () => {
    expect(dayRange("20270227", "20270302")).toEqual(["20270227", "20270228", "20270301", "20270302"]);
    expect(dayRange("20270301", "20270301")).toEqual(["20270301"]);
  });
});
