import { plusMonths } from "./gateway-calendar";

/**
 * The subset of ISO 8601 durations the sandbox clock accepts: `PnYnMnWnDTnHnMnS` with whole numbers, and a fraction
 * on seconds only (`PT1.5S`). Years and months are calendar steps clamped to the month's end (Jan 31 + P1M = Feb 28
 * or 29), days are 24 hours (calendar steps are taken in UTC; the gateway's dates are read in its own zone).
 */
export interface IsoDuration {
  readonly years: number;
  readonly months: number;
  readonly days: number;
  /** Hours, minutes and seconds together. */
  readonly milliseconds: number;
}

const PATTERN =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/;

/** Parses a duration; undefined when it is not in the supported subset (or is just "P" / "PT"). */
export function parseIsoDuration(text: string): IsoDuration | undefined {
  const match = PATTERN.exec(text);
  if (!match || text === "P" || text.endsWith("T")) return undefined;
  const [years, months, weeks, days, hours, minutes] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const seconds = Number(match[7] ?? 0);
  return {
    years: years ?? 0,
    months: months ?? 0,
    days: (weeks ?? 0) * 7 + (days ?? 0),
    milliseconds: Math.round((((hours ?? 0) * 60 + (minutes ?? 0)) * 60 + seconds) * 1000),
  };
}

/** `date` moved forward by `duration`, in UTC. */
export function addIsoDuration(date: Date, duration: IsoDuration): Date {
  const shifted = plusMonths(date, duration.years * 12 + duration.months);
  return new Date(shifted.getTime() + duration.days * 86_400_000 + duration.milliseconds);
}
