import { gatewayTimeInstant } from "../functions/gateway/calendar";
import { CliError } from "./cli-io";

// One form of time in everything the CLI prints for people: UTC to the minute, the zone stated (2027-03-01 14:05Z).
// --json keeps the full ISO 8601 instants of the data. Options take ISO 8601 dates and instants (the printed form
// too, so a time can be copied from a table), and reconcile's days also as the gateway's YYYYMMDD.

/** Accepted instants, as the help texts and errors name them. */
export const INSTANT_FORMS =
  "2027-03-01 (midnight UTC), 2027-03-01T14:05Z, 2027-03-01 14:05Z or 2027-03-01T23:05+09:00";

/** Accepted gateway days. */
export const DAY_FORMS = "2027-03-01 or 20270301";

/** An instant as the CLI prints it: `2027-03-01 14:05Z`. */
export function formatInstant(value: string | Date): string {
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return String(value);
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}

/** An instant or nothing ("-"), as a table cell. */
export const instantOrDash = (value: string | null | undefined): string =>
  value === null || value === undefined ? "-" : formatInstant(value);

/** A reconciliation's `at`: the gateway's YYYYMMDDHHMMSS (Korea time) or an ISO instant of ours, printed alike. */
export function formatRecordTime(value: string): string {
  return /^\d{14}$/.test(value) ? formatInstant(gatewayTimeInstant(value)) : formatInstant(value);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-]\d{2}):?(\d{2}))$/i;

/** Whether y-m-d names a day of the calendar (not 2027-02-30). */
function isCalendarDate(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.toISOString().slice(0, 10) === `${year}-${month}-${day}`;
}

/**
 * An instant option (--from, --to of events): an ISO 8601 date (its midnight UTC) or an instant with its zone (Z or
 * an offset; seconds optional), as the full ISO instant. Anything else is a CliError naming the option and an example.
 */
export function parseInstantOption(option: string, value: string): string {
  const refuse = (why: string) =>
    new CliError(
      `${option} ${JSON.stringify(value)} ${why}: type an ISO 8601 date or instant, e.g. ${INSTANT_FORMS}`,
    );
  const date = DATE.exec(value);
  if (date) {
    const [, year = "", month = "", day = ""] = date;
    if (!isCalendarDate(year, month, day)) throw refuse("is not a calendar date");
    return `${value}T00:00:00.000Z`;
  }
  const instant = INSTANT.exec(value);
  if (!instant) {
    if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value))
      throw refuse("has no zone (add Z for UTC)");
    throw refuse("is not an ISO 8601 date or instant");
  }
  const [, year = "", month = "", day = "", hours = "", minutes = "", seconds = "00", fraction = ""] =
    instant;
  const [zoneHours, zoneMinutes] = [instant[9], instant[10]];
  const zone = zoneHours === undefined ? "Z" : `${zoneHours}:${zoneMinutes}`;
  const valid =
    isCalendarDate(year, month, day) && Number(hours) < 24 && Number(minutes) < 60 && Number(seconds) < 60;
  const parsed = new Date(
    `${year}-${month}-${day}T${hours}:${minutes}:${seconds}${fraction.slice(0, 4)}${zone}`,
  );
  if (!valid || Number.isNaN(parsed.getTime())) throw refuse("is not a valid date and time");
  return parsed.toISOString();
}

/** A gateway day option (--from, --to of reconcile): 2027-03-01 or 20270301, as YYYYMMDD. */
export function parseDayOption(option: string, value: string): string {
  const digits = DATE.test(value) ? value.replaceAll("-", "") : value;
  const valid =
    /^\d{8}$/.test(digits) && isCalendarDate(digits.slice(0, 4), digits.slice(4, 6), digits.slice(6, 8));
  if (!valid)
    throw new CliError(`${option} ${JSON.stringify(value)} is not a calendar day: type it as ${DAY_FORMS}`);
  return digits;
}

/** The YYYYMMDD days from `from` to `to`, both included. */
export function dayRange(from: string, to: string): string[] {
  const dateOf = (day: string) => Date.UTC(+day.slice(0, 4), +day.slice(4, 6) - 1, +day.slice(6, 8));
  const days: string[] = [];
  for (let time = dateOf(from); time <= dateOf(to); time += 86_400_000)
    days.push(new Date(time).toISOString().slice(0, 10).replaceAll("-", ""));
  return days;
}

/** A gateway day (YYYYMMDD) as the CLI prints it: 2027-03-01. */
export const formatDay = (day: string): string => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
