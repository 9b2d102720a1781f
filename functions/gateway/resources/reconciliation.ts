import type { z } from "zod";
import { gatewayDate } from "../calendar";
import { callMerchantApi, type GatewayContext } from "../context";
import { GatewayRequestError, parseRequest } from "../errors";
import { type GatewayResult, success } from "../result";
import {
  dayNumber,
  type ExpectedSettlementsResponse,
  expectedSettlementsRequestSchema,
  expectedSettlementsResponseSchema,
  formatDayNumber,
  formatUtcDate,
  MAX_TRANSACTION_WINDOW_DAYS,
  type SettlementsResponse,
  settlementsRequestSchema,
  settlementsResponseSchema,
  type TransactionsRequest,
  type TransactionsResponse,
  transactionsRangeSchema,
  transactionsRequestSchema,
  transactionsResponseSchema,
} from "../schemas/reconciliation";

/** The gateway keeps 5 years of transaction history. */
export const TRANSACTION_HISTORY_YEARS = 5;

export interface DateWindow {
  readonly from_date: string;
  readonly to_date: string;
}

/**
 * Splits an inclusive YYYYMMDD range into consecutive inclusive windows of at most `maxDays` days, in order
 * (7 days = from..from+6). Expects valid dates; an inverted range yields no window.
 */
export function splitDateRange(
  from: string,
  to: string,
  maxDays = MAX_TRANSACTION_WINDOW_DAYS,
): DateWindow[] {
  const last = dayNumber(to);
  const windows: DateWindow[] = [];
  for (let start = dayNumber(from); start <= last; start += maxDays) {
    windows.push({
      from_date: formatDayNumber(start),
      to_date: formatDayNumber(Math.min(start + maxDays - 1, last)),
    });
  }
  return windows;
}

/** The earliest YYYYMMDD the gateway still answers for: the same calendar day 5 years back, in Korea. */
export function earliestTransactionDate(now: Date): string {
  const today = gatewayDate(now);
  const [year, month, day] = [today.slice(0, 4), today.slice(4, 6), today.slice(6, 8)].map(Number) as [
    number,
    number,
    number,
  ];
  // Date.UTC rolls Feb 29 over to Mar 1 of a common year: the stricter bound.
  return formatUtcDate(new Date(Date.UTC(year - TRANSACTION_HISTORY_YEARS, month - 1, day)));
}

/** One response for the whole range: D in window order, total_count summed, H spanning the requested range. */
export function mergeTransactionWindows(
  range: DateWindow,
  pages: readonly TransactionsResponse[],
): TransactionsResponse {
  const [first] = pages;
  const total = pages.reduce((sum, page) => sum + Number(page.T.total_count), 0);
  return {
    rescode: first?.rescode,
    resmsg: first?.resmsg,
    H: { request_date: first?.H.request_date ?? "", from_date: range.from_date, to_date: range.to_date },
    D: pages.flatMap((page) => page.D),
    T: { total_count: String(total) },
    notices: pages.flatMap((page) => page.notices),
  };
}

export interface ReconciliationClient {
  /** Transactions of an inclusive range of any length within the past 5 years, fetched in 7-day windows. */
  transactions(from: string, to: string): Promise<GatewayResult<TransactionsResponse>>;
  settlements(remittanceDate: string): Promise<GatewayResult<SettlementsResponse>>;
  expectedSettlements(preRemittanceDate: string): Promise<GatewayResult<ExpectedSettlementsResponse>>;
}

/** Reconciliation API: reads only (retried by the transport while unavailable); mid comes from the config. */
export function createReconciliationClient(context: GatewayContext): ReconciliationClient {
  const { mid, paymentBaseUrl } = context.config;

  // The seed documents only H/D/T for these responses: a body without rescode may be a success.
  const read = <S extends z.ZodType>(path: string, body: unknown, response: S) =>
    callMerchantApi(context, {
      baseUrl: paymentBaseUrl,
      path,
      body,
      kind: "read",
      response,
      success: { rescodeOptional: true },
    });

  const transactionsWindow = (body: TransactionsRequest) =>
    read("/v1/reconciliation/transactions", body, transactionsResponseSchema);

  return {
    async transactions(from, to) {
      const range = parseRequest(transactionsRangeSchema, { from_date: from, to_date: to });
      if (range.from_date < earliestTransactionDate(context.now())) {
        throw new GatewayRequestError(
          "from_date",
          `must be within the past ${TRANSACTION_HISTORY_YEARS} years`,
        );
      }
      // Every window is validated before the first call, so an invalid request sends nothing.
      const bodies = splitDateRange(range.from_date, range.to_date).map((window) =>
        parseRequest(transactionsRequestSchema, { mid, ...window }),
      );
      // Sequential: keeps window order and the load on the gateway low; partial data is never a success.
      const pages: TransactionsResponse[] = [];
      for (const body of bodies) {
        const outcome = await transactionsWindow(body);
        if (outcome.kind !== "success") return outcome;
        pages.push(outcome.value);
      }
      return success(mergeTransactionWindows(range, pages));
    },

    async settlements(remittanceDate) {
      const body = parseRequest(settlementsRequestSchema, { mid, remittance_date: remittanceDate });
      return read("/v1/reconciliation/settlements", body, settlementsResponseSchema);
    },

    async expectedSettlements(preRemittanceDate) {
      const body = parseRequest(expectedSettlementsRequestSchema, {
        mid,
        pre_remittance_date: preRemittanceDate,
      });
      return read("/v1/reconciliation/expected-settlements", body, expectedSettlementsResponseSchema);
    },
  };
}
