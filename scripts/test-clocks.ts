// The machine clocks and time zones the whole suite must pass under (README, Test tiers): the year's turn a few
// minutes ahead, a month's last day, a leap day, and the zones furthest ahead of and behind UTC, each on a date where
// the zone's calendar day is not UTC's. The year's turn and the skipped hour fall while the suite runs.

export interface TestClock {
  readonly name: string;
  /** The machine's clock when the suite starts (it runs on from there). */
  readonly at: string;
  /** The machine's time zone (TZ). */
  readonly timeZone: string;
}

export const TEST_CLOCKS: readonly TestClock[] = [
  { name: "year-end", at: "2026-12-31T23:50:00Z", timeZone: "UTC" },
  { name: "month-end", at: "2027-01-31T12:00:00Z", timeZone: "UTC" },
  { name: "leap-day", at: "2028-02-29T09:00:00Z", timeZone: "UTC" },
  // UTC+14: already 2027-01-01 00:30 there while UTC's year still has 13 hours to run.
  { name: "kiritimati", at: "2026-12-31T10:30:00Z", timeZone: "Pacific/Kiritimati" },
  // UTC−10 with daylight saving: 2027-03-14 01:52 there, eight minutes before its clocks skip from 02:00 to 03:00.
  { name: "adak", at: "2027-03-14T11:52:00Z", timeZone: "America/Adak" },
];

/** The clock a commit's CI run takes: the next one for each commit on main, so every clock comes round. */
export const clockForCommit = (commitCount: number): TestClock =>
  TEST_CLOCKS[commitCount % TEST_CLOCKS.length] as TestClock;

/** faketime's relative offset ("+123s") that puts a clock reading `now` at `at`: every process the suite starts, at
 * any moment, reads the same shifted clock (an absolute "@…" would restart each child process at `at`). */
export const faketimeOffset = (at: string, now: Date): string => {
  const seconds = Math.round((Date.parse(at) - now.getTime()) / 1000);
  return seconds >= 0 ? `+${seconds}s` : `${seconds}s`;
};
