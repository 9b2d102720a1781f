// The gateway is in Korea (README, The real gateway): its dates and times — transaction_date, trade_date, the
// YYYYMMDD of reconciliation windows, recurring_start_date "later than today" — are Korea Standard Time, UTC+9, which
// has no daylight saving. Our own records keep UTC instants; these helpers convert at the edge.

/** Korea Standard Time, minutes east of UTC. */
const GATEWAY_UTC_OFFSET_MINUTES = 9 * 60;

const OFFSET_MS = GATEWAY_UTC_OFFSET_MINUTES * 60_000;
const DAY_MS = 86_400_000;

/** The gateway's wall clock at an instant, as a Date whose UTC fields read that wall time. */
const wallClock = (instant: Date) => new Date(instant.getTime() + OFFSET_MS);

/** The gateway's calendar day (YYYYMMDD) at an instant. */
export function gatewayDate(instant: Date): string {
  return wallClock(instant).toISOString().slice(0, 10).replaceAll("-", "");
}

/** The instant a gateway day (YYYYMMDD) begins: its midnight in Korea, 15:00 UTC the day before. */
export function gatewayDayStart(yyyymmdd: string): Date {
  const year = Number(yyyymmdd.slice(0, 4));
  const month = Number(yyyymmdd.slice(4, 6));
  const day = Number(yyyymmdd.slice(6, 8));
  return new Date(Date.UTC(year, month - 1, day) - OFFSET_MS);
}

/** The instant of a gateway time (YYYYMMDDHHMMSS, as trade_date), read in Korea time. */
export function gatewayTimeInstant(yyyymmddhhmmss: string): Date {
  const hours = Number(yyyymmddhhmmss.slice(8, 10));
  const minutes = Number(yyyymmddhhmmss.slice(10, 12));
  const seconds = Number(yyyymmddhhmmss.slice(12, 14));
  return new Date(
    gatewayDayStart(yyyymmddhhmmss.slice(0, 8)).getTime() + ((hours * 60 + minutes) * 60 + seconds) * 1000,
  );
}

/** The gateway's calendar, as its reconciliation readers take it. */
export const gatewayCalendar = { dayOf: gatewayDate, dayStart: gatewayDayStart, shift: shiftGatewayDate };

/** The gateway day `days` after (or before) a gateway day. */
export function shiftGatewayDate(yyyymmdd: string, days: number): string {
  return gatewayDate(new Date(gatewayDayStart(yyyymmdd).getTime() + days * DAY_MS));
}
