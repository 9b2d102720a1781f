import * as z from "zod";
import { mid, oneOrMany, signedAmount, withAliases, yyyymmdd } from "./primitives";

// Reconciliation API (seed 001): POST /v1/reconciliation/{transactions,settlements,expected-settlements}.
// Requests are strict wire schemas (the sandbox validates incoming bodies with them); responses are lenient: every
// field is a string, lengths are not enforced, only values our logic branches on (amounts, type codes) are checked.

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a valid YYYYMMDD (UTC calendar). */
export function dayNumber(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8))) / DAY_MS;
}

/** The YYYYMMDD of an instant, in UTC. */
export function formatUtcDate(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll("-", "");
}

/** The YYYYMMDD of a day number. */
export function formatDayNumber(day: number): string {
  return formatUtcDate(new Date(day * DAY_MS));
}

/** The gateway answers at most 7 days of transactions per request. */
export const MAX_TRANSACTION_WINDOW_DAYS = 7;

// ---------- requests ----------

const dateRange = { from_date: yyyymmdd, to_date: yyyymmdd };
type DateRange = { readonly from_date: string; readonly to_date: string };

const isOrdered = (range: DateRange) => range.from_date <= range.to_date;
const ORDERED = { path: ["from_date"], error: "must not be after to_date" };

/** A transactions range as a caller asks for it: any length; the client splits it into 7-day requests. */
export const transactionsRangeSchema = z.strictObject(dateRange).refine(isOrdered, ORDERED);

/** One transactions request on the wire: at most 7 days, both ends inclusive. */
export const transactionsRequestSchema = z
  .strictObject({ mid, ...dateRange })
  .refine(isOrdered, ORDERED)
  .refine((range) => dayNumber(range.to_date) - dayNumber(range.from_date) < MAX_TRANSACTION_WINDOW_DAYS, {
    path: ["to_date"],
    error: `must be at most ${MAX_TRANSACTION_WINDOW_DAYS} days from from_date (inclusive)`,
  });
export type TransactionsRequest = z.output<typeof transactionsRequestSchema>;

export const settlementsRequestSchema = z.strictObject({ mid, remittance_date: yyyymmdd });
export type SettlementsRequest = z.output<typeof settlementsRequestSchema>;

export const expectedSettlementsRequestSchema = z.strictObject({ mid, pre_remittance_date: yyyymmdd });
export type ExpectedSettlementsRequest = z.output<typeof expectedSettlementsRequestSchema>;

// ---------- responses: shared pieces ----------

/** The response may carry rescode/resmsg; the seed documents only H, D and T. */
const optionalEnvelope = { rescode: z.string().optional(), resmsg: z.string().optional() };

/** T: the number of records. */
export const tailSchema = z.object({ total_count: z.string().regex(/^\d+$/, "must be a count") });
export type Tail = z.output<typeof tailSchema>;

/**
 * A D entry that is no record: the seed says D "may carry resmsg when no result exists or an error occurs". Such an
 * entry is recognised by a resmsg and no transaction id; it is exposed as a notice, not as a record.
 */
const noticeEntry = withAliases(
  { transacton_id: "transaction_id" },
  z.object({ resmsg: z.string(), transaction_id: z.literal("").optional() }),
);

/** D: one object, an array, or absent → `{ records, notices }`. */
function dataSection<R extends z.ZodType>(record: R) {
  return oneOrMany(z.unknown())
    .transform((entries) => {
      const records: unknown[] = [];
      const notices: string[] = [];
      for (const entry of entries) {
        const notice = noticeEntry.safeParse(entry);
        if (notice.success) notices.push(notice.data.resmsg);
        else records.push(entry);
      }
      return { records, notices };
    })
    .pipe(z.object({ records: z.array(record), notices: z.array(z.string()) }));
}

// ---------- transactions ----------

export const transactionsHeaderSchema = z.object({
  request_date: z.string(),
  from_date: z.string(),
  to_date: z.string(),
});
export type TransactionsHeader = z.output<typeof transactionsHeaderSchema>;

/** Samples spell the transaction id key `transacton_id`. */
export const transactionRecordSchema = withAliases(
  { transacton_id: "transaction_id" },
  z.object({
    trade_date: z.string(),
    trade_type: z.string(),
    mid: z.string(),
    transaction_id: z.string(),
    original_transaction_id: z.string(),
    order_id: z.string(),
    request_currency: z.string(),
    request_amount: signedAmount,
    payment_method: z.string(),
    param1: z.string(),
    param2: z.string(),
    param3: z.string(),
    resmsg: z.string().optional(),
  }),
);
export type TransactionRecord = z.output<typeof transactionRecordSchema>;

/** Transactions: D is always an array of records; `notices` holds the resmsg of D entries that are no record. */
export const transactionsResponseSchema = z
  .object({
    ...optionalEnvelope,
    H: transactionsHeaderSchema,
    D: dataSection(transactionRecordSchema),
    T: tailSchema,
  })
  .transform(({ D, ...rest }) => ({ ...rest, D: D.records, notices: D.notices }));
export type TransactionsResponse = z.output<typeof transactionsResponseSchema>;

// ---------- settlements and expected settlements ----------

export const settlementHeaderSchema = z.object({
  request_date: z.string(),
  remittance_date: z.string(),
  version: z.string(),
  settle_date: z.string(),
  settle_currency: z.string(),
  settle_amount: signedAmount,
  vat_fee_amount: signedAmount,
  etc_vat_amount: signedAmount,
  adjust_amount: signedAmount,
  remittance_amount: signedAmount,
  exchange_rate: z.string(),
  deposit_currency: z.string(),
  deposit_amount: z.string(),
});
export type SettlementHeader = z.output<typeof settlementHeaderSchema>;

export const expectedSettlementHeaderSchema = z.object({
  request_date: z.string(),
  pre_remittance_date: z.string(),
  version: z.string(),
  pre_settle_date: z.string(),
  settle_currency: z.string(),
  settle_amount: signedAmount,
  adjust_amount: signedAmount,
  remittance_amount: signedAmount,
});
export type ExpectedSettlementHeader = z.output<typeof expectedSettlementHeaderSchema>;

/** Samples spell `transacton_id`; the expected-settlement list documents `reqAmount` for request_amount. */
export const settlementRecordSchema = withAliases(
  { transacton_id: "transaction_id", reqAmount: "request_amount" },
  z.object({
    trade_date: z.string(),
    /** N normal, C chargeback. */
    trade_type: z.enum(["N", "C"]),
    mid: z.string(),
    transaction_id: z.string(),
    order_id: z.string(),
    request_currency: z.string(),
    request_amount: signedAmount,
    /** S sale, R refund, P partial cancellation. */
    transaction_type: z.enum(["S", "R", "P"]),
    approval_currency: z.string(),
    approval_amount: signedAmount,
    /** R request currency → settlement currency, A authorised currency → settlement currency. */
    billed_type: z.enum(["R", "A"]),
    billed_currency: z.string(),
    billed_exchange_rate: z.string(),
    billed_exchange_rate_amount: signedAmount,
    service_fee_amount: signedAmount,
    fee_amount: signedAmount,
    service_fee_supply_amount: signedAmount,
    service_fee_vat_amount: signedAmount,
    fee_supply_amount: signedAmount,
    fee_vat_amount: signedAmount,
    request_sub_amount_total: signedAmount,
    resmsg: z.string().optional(),
  }),
);
export type SettlementRecord = z.output<typeof settlementRecordSchema>;

/** The D entries and T of one remittance, before the records are read. */
interface RawRemittance {
  readonly entries: readonly unknown[];
  readonly total_count: string;
}

/**
 * Groups the raw D entries per remittance, in the order of T (and of H, whose length the caller checked):
 * - D an array of arrays: one inner array per remittance;
 * - otherwise (flat array, single object, absent): with one remittance, all of D; with several, D is cut in order
 *   into consecutive runs of T[i].total_count entries, which must add up to the length of D.
 * Anything else cannot be paired and makes the response unreadable (never guessed). Returns the reason then.
 */
function groupRemittanceData(entries: readonly unknown[], tails: readonly Tail[]): RawRemittance[] | string {
  const arrays = entries.filter((entry) => Array.isArray(entry));
  if (arrays.length > 0 && arrays.length === entries.length) {
    if (arrays.length !== tails.length) return "must have one array per remittance (H)";
    return tails.map((tail, index) => ({ entries: arrays[index] ?? [], total_count: tail.total_count }));
  }
  if (tails.length <= 1) {
    if (tails.length === 0 && entries.length > 0) return "has entries but there is no H";
    return tails.map((tail) => ({ entries, total_count: tail.total_count }));
  }
  if (tails.reduce((sum, tail) => sum + Number(tail.total_count), 0) !== entries.length) {
    return "cannot be split per remittance: the T total_counts do not add up to its length";
  }
  let end = 0;
  return tails.map((tail) => {
    const start = end;
    end += Number(tail.total_count);
    return { entries: entries.slice(start, end), total_count: tail.total_count };
  });
}

/** One remittance of a settlements or expected-settlements response. */
export interface Remittance<Header> {
  readonly header: Header;
  readonly records: SettlementRecord[];
  /** resmsg of D entries that are no record (no result, or an error during the query). */
  readonly notices: string[];
  readonly total_count: string;
}

const remittanceData = z.object({ entries: dataSection(settlementRecordSchema), total_count: z.string() });

/**
 * Settlements and expected settlements: H, D and T come per remittance (samples show single objects). Exposed only
 * as `remittances`, in H order, so callers never handle "object or array".
 */
function settlementResponseSchema<H extends z.ZodType>(header: H) {
  return z
    .object({
      ...optionalEnvelope,
      H: oneOrMany(header),
      D: oneOrMany(z.unknown()),
      T: oneOrMany(tailSchema),
    })
    .transform(({ H, D, T, ...envelope }, ctx) => {
      const groups = H.length === T.length ? groupRemittanceData(D, T) : "T must have one entry per H";
      if (typeof groups === "string") {
        ctx.issues.push({ code: "custom", path: ["D"], message: groups, input: undefined });
        return z.NEVER;
      }
      const remittances: Remittance<z.output<H>>[] = [];
      for (const [index, remittanceHeader] of H.entries()) {
        const data = remittanceData.safeParse(groups[index], { reportInput: false });
        if (!data.success) {
          const [issue] = data.error.issues;
          const path = ["D", index, ...(issue?.path ?? [])];
          ctx.issues.push({ code: "custom", path, message: issue?.message ?? "invalid", input: undefined });
          return z.NEVER;
        }
        const { entries, total_count } = data.data;
        remittances.push({
          header: remittanceHeader,
          records: entries.records,
          notices: entries.notices,
          total_count,
        });
      }
      return { ...envelope, remittances };
    });
}

export const settlementsResponseSchema = settlementResponseSchema(settlementHeaderSchema);
export type SettlementsResponse = z.output<typeof settlementsResponseSchema>;
export type SettlementRemittance = Remittance<SettlementHeader>;

export const expectedSettlementsResponseSchema = settlementResponseSchema(expectedSettlementHeaderSchema);
export type ExpectedSettlementsResponse = z.output<typeof expectedSettlementsResponseSchema>;
export type ExpectedSettlementRemittance = Remittance<ExpectedSettlementHeader>;
