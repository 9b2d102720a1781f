// The gateway's calendar: Korea Standard Time (UTC+9, no daylight saving) for every date and time it writes or
// reads (README, The real gateway), and months that keep their day where they can.

/** Korea Standard Time, minutes east of UTC: the sandbox's default zone, as the real gateway's. */
export const KOREA_UTC_OFFSET_MINUTES = 9 * 60;

const daysInMonth = (year: number, monthIndex: number) =>
  new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();

/** `months` calendar months after an instant, the day clamped to the month's last (Jan 31 + 1 = Feb 28 or 29). */
export function plusMonths(instant: Date, months: number): Date {
  const total = instant.getUTCFullYear() * 12 + instant.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const monthIndex = total - year * 12;
  const clamped = new Date(instant);
  clamped.setUTCFullYear(year, monthIndex, Math.min(instant.getUTCDate(), daysInMonth(year, monthIndex)));
  return clamped;
}

/** `yyyy-MM-dd'T'HH:mm:ss.SSS±hh:mm` of an instant in the zone `offsetMinutes` east of UTC (webhook times). */
export function zonedTimestamp(instant: Date, offsetMinutes: number): string {
  const local = new Date(instant.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const offset = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${local}${sign}${offset}`;
}
