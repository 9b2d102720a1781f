import * as z from "zod";
import { InvalidField, okReply, parseFields } from "../http/replies";
import { defineRoute, type RouteDefinition } from "../http/routes";
import { addAmounts, multiplyAmounts, subtractAmounts } from "../shared/decimal";
import type { Ledger } from "../state/ledger";
import type { Merchant } from "../state/merchant-config";
import type { PaymentRecord, PaymentStatus } from "../state/payment-store";
import { calendarDay, merchantId } from "./request-fields";

// Reconciliation API (seed 001), computed from the sandbox's own ledger. Invented where the seed is silent:
// - transaction trade_type: T000 payment (SALE or AUTH), T100 full refund, T101 partial refund, T200 chargeback;
//   request_amount is negative for refunds and chargebacks, so the amounts of a range add up to its net;
// - a refund's or chargeback's transaction_id is its own (SBXR… / SBXC…), original_transaction_id the payment's;
// - settlement: a movement is remitted SETTLEMENT_DELAY_DAYS after its trade day (a captured AUTH: after the
//   capture day), one remittance per currency (settle currency = request currency, exchange rate 1);
// - fees are negative (deductions): service fee 3.4 % of a payment (none on refunds or chargebacks), no additional
//   fee, VAT 10 % of each fee, each rounded half away from zero to the currency's minor unit;
//   request_sub_amount_total = converted amount + service fee + fee + both VATs (= converted − |fees| − |VATs|);
// - header: settle_amount = Σ (converted + service fee + fee), vat_fee_amount = Σ VATs, etc_vat and adjust 0,
//   remittance_amount = deposit_amount = settle_amount + vat_fee_amount = Σ request_sub_amount_total;
// - availability: settlements of day P from P + 1, expected settlements of P (trades of P − 2) from P; earlier is
//   EC00 naming the date; a date without remittance answers H, D and T as empty arrays;
// - a movement misreported by the sandbox's control (POST /sandbox/settlement-alterations) has its record's fields
//   stated otherwise or is left out of D; H and T still state what was really paid out.

// ───────────── requests (seed 001): every day a YYYYMMDD of the gateway's calendar ─────────────

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of a YYYYMMDD, for calendar arithmetic only. */
const dayNumber = (day: string) =>
  Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8))) / DAY_MS;
const dayOfNumber = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "");
const shiftDay = (day: string, days: number) => dayOfNumber(dayNumber(day) + days);

/** The gateway answers at most 7 days of transactions per request, and keeps 5 years. */
const MAX_TRANSACTION_DAYS = 7;
const HISTORY_YEARS = 5;

const transactionsRequest = z
  .looseObject({ mid: merchantId, from_date: calendarDay, to_date: calendarDay })
  .refine((range) => range.from_date <= range.to_date, {
    path: ["from_date"],
    error: "must not be after to_date",
  })
  .refine((range) => dayNumber(range.to_date) - dayNumber(range.from_date) < MAX_TRANSACTION_DAYS, {
    path: ["to_date"],
    error: `must be at most ${MAX_TRANSACTION_DAYS} days from from_date (inclusive)`,
  });
const settlementsRequest = z.looseObject({ mid: merchantId, remittance_date: calendarDay });
const expectedSettlementsRequest = z.looseObject({ mid: merchantId, pre_remittance_date: calendarDay });

/** The first day still answered: the same calendar day 5 years back (29 February rolls over to 1 March). */
function earliestDay(today: string): string {
  const year = Number(today.slice(0, 4)) - HISTORY_YEARS;
  return dayOfNumber(Date.UTC(year, Number(today.slice(4, 6)) - 1, Number(today.slice(6, 8))) / DAY_MS);
}

// ───────────── answers ─────────────

type TransactionRecord = Readonly<Record<string, string>>;
type SettlementRecord = Readonly<Record<SettlementField, string>>;
type SettlementField =
  | "trade_date"
  | "trade_type"
  | "mid"
  | "transaction_id"
  | "order_id"
  | "request_currency"
  | "request_amount"
  | "transaction_type"
  | "approval_currency"
  | "approval_amount"
  | "billed_type"
  | "billed_currency"
  | "billed_exchange_rate"
  | "billed_exchange_rate_amount"
  | "service_fee_amount"
  | "fee_amount"
  | "service_fee_supply_amount"
  | "service_fee_vat_amount"
  | "fee_supply_amount"
  | "fee_vat_amount"
  | "request_sub_amount_total";

/** The amounts of a settlement record the sandbox's control may misreport. */
export const SETTLEMENT_AMOUNT_FIELDS = [
  "request_amount",
  "approval_amount",
  "billed_exchange_rate_amount",
  "service_fee_amount",
  "fee_amount",
  "service_fee_supply_amount",
  "service_fee_vat_amount",
  "fee_supply_amount",
  "fee_vat_amount",
  "request_sub_amount_total",
] as const satisfies readonly SettlementField[];

export const TRANSACTION_TRADE_TYPES = {
  payment: "T000",
  fullRefund: "T100",
  partialRefund: "T101",
  chargeback: "T200",
} as const;

type MovementKind = keyof typeof TRANSACTION_TRADE_TYPES;

const SETTLEMENT_CODES = {
  payment: { trade: "N", transaction: "S" },
  fullRefund: { trade: "N", transaction: "R" },
  partialRefund: { trade: "N", transaction: "P" },
  chargeback: { trade: "C", transaction: "R" },
} as const satisfies Record<MovementKind, { trade: "N" | "C"; transaction: "S" | "R" | "P" }>;

export const SETTLEMENT_DELAY_DAYS = 2;
export const SERVICE_FEE_RATE = "0.034";
export const VAT_RATE = "0.1";
const SETTLEMENT_VERSION = "200";
/** Card payments unless the payment says otherwise (seed 000: P000 is credit card). */
const DEFAULT_PAYMENT_METHOD = "P000";
/** The D entry of a range without transactions (seed: D carries resmsg "when there is no result"). */
const NO_DATA = { resmsg: "No data" };

/** Currencies without minor unit; every other one rounds to cents. */
const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(["JPY", "KRW", "VND", "CLP", "ISK"]);
const RECONCILED: ReadonlySet<PaymentStatus> = new Set(["SALE", "AUTH"]);

/** One money movement of a merchant, as reconciliation sees it. */
interface Movement {
  readonly kind: MovementKind;
  readonly transactionId: string;
  readonly payment: PaymentRecord;
  /** YYYYMMDDHHMMSS of the movement. */
  readonly tradeDate: string;
  /** YYYYMMDD whose remittance carries it; undefined while it does not settle (an uncaptured AUTH). */
  readonly settleDay: string | undefined;
  /** Signed: negative for refunds and chargebacks. */
  readonly amount: string;
}

const negate = (amount: string) => subtractAmounts("0", amount);
const dayOf = (stamp: string) => stamp.slice(0, 8);
const byTradeDate = (a: Movement, b: Movement) =>
  a.tradeDate.localeCompare(b.tradeDate) || a.transactionId.localeCompare(b.transactionId);

function* movementsOf(ledger: Ledger, mid: string): Generator<Movement> {
  for (const payment of ledger.payments.payments()) {
    if (payment.mid !== mid || !RECONCILED.has(payment.status)) continue;
    const { transactionId, transactionDate, chargeback } = payment;
    const settleDay = payment.status === "SALE" ? dayOf(payment.capturedDate ?? transactionDate) : undefined;
    yield {
      kind: "payment",
      transactionId,
      payment,
      tradeDate: transactionDate,
      settleDay,
      amount: payment.amount,
    };
    // A chargeback moves money when it is deducted, not when it is reported.
    if (chargeback?.deductedDate !== undefined) {
      const { chargebackId, deductedDate, amount } = chargeback;
      yield {
        kind: "chargeback",
        transactionId: chargebackId,
        payment,
        tradeDate: deductedDate,
        settleDay: dayOf(deductedDate),
        amount: negate(amount),
      };
    }
  }
  for (const refund of ledger.payments.refunds()) {
    const payment =
      refund.mid === mid ? ledger.payments.findTransaction(mid, refund.transactionId) : undefined;
    if (!payment || !RECONCILED.has(payment.status)) continue;
    yield {
      kind: refund.type === "F" ? "fullRefund" : "partialRefund",
      transactionId: refund.refundTransactionId,
      payment,
      tradeDate: refund.refundDate,
      settleDay: payment.status === "SALE" ? dayOf(refund.refundDate) : undefined,
      amount: negate(refund.amount),
    };
  }
}

/** Body mid must be the authenticated merchant's: the sandbox has no master merchants. */
function requireOwnMid(mid: string, merchant: Merchant): void {
  if (mid !== merchant.mid) throw new InvalidField("mid", "must be the authenticated merchant's mid");
}

function transactionRecord(movement: Movement): TransactionRecord {
  const { payment } = movement;
  return {
    trade_date: movement.tradeDate,
    trade_type: TRANSACTION_TRADE_TYPES[movement.kind],
    mid: payment.mid,
    transaction_id: movement.transactionId,
    original_transaction_id: payment.transactionId,
    order_id: payment.orderId,
    request_currency: payment.currency,
    request_amount: movement.amount,
    payment_method: payment.paymentMethod ?? DEFAULT_PAYMENT_METHOD,
    param1: payment.otherParam?.param1 ?? "",
    param2: payment.otherParam?.param2 ?? "",
    param3: payment.otherParam?.param3 ?? "",
  };
}

const minorUnits = (currency: string) => (ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2);
const zeroAmount = (decimals: number) => multiplyAmounts("0", "0", decimals);
const sum = (amounts: readonly string[], decimals: number) =>
  amounts.reduce(addAmounts, zeroAmount(decimals));

function settlementRecord(movement: Movement): SettlementRecord {
  const { payment, amount } = movement;
  const { currency } = payment;
  const decimals = minorUnits(currency);
  const serviceFee =
    movement.kind === "payment"
      ? multiplyAmounts(amount, negate(SERVICE_FEE_RATE), decimals)
      : zeroAmount(decimals);
  const fee = zeroAmount(decimals);
  const serviceFeeVat = multiplyAmounts(serviceFee, VAT_RATE, decimals);
  const feeVat = multiplyAmounts(fee, VAT_RATE, decimals);
  const codes = SETTLEMENT_CODES[movement.kind];
  return {
    trade_date: movement.tradeDate,
    trade_type: codes.trade,
    mid: payment.mid,
    transaction_id: movement.transactionId,
    order_id: payment.orderId,
    request_currency: currency,
    request_amount: amount,
    transaction_type: codes.transaction,
    approval_currency: currency,
    approval_amount: amount,
    billed_type: "R",
    billed_currency: currency,
    billed_exchange_rate: "1",
    billed_exchange_rate_amount: amount,
    service_fee_amount: serviceFee,
    fee_amount: fee,
    service_fee_supply_amount: serviceFee,
    service_fee_vat_amount: serviceFeeVat,
    fee_supply_amount: fee,
    fee_vat_amount: feeVat,
    request_sub_amount_total: sum([amount, serviceFee, serviceFeeVat, fee, feeVat], decimals),
  };
}

/** What one remittance adds up to. */
interface RemittanceTotals {
  readonly currency: string;
  /** As paid out; `reported` is what D lists of them. */
  readonly records: SettlementRecord[];
  readonly reported: SettlementRecord[];
  /** Converted amounts net of fees, before VAT. */
  readonly settleAmount: string;
  readonly vatAmount: string;
  readonly adjustAmount: string;
  readonly remittanceAmount: string;
}

/** The records as the list reports them: each misreported as the sandbox's control says. */
function reportedRecords(ledger: Ledger, records: readonly SettlementRecord[]): SettlementRecord[] {
  return records.flatMap((record) => {
    const alteration = ledger.settlementAlterations.of(record.transaction_id);
    if (alteration === undefined) return [record];
    return alteration.omit ? [] : [{ ...record, ...alteration.set }];
  });
}

function totalsOf(ledger: Ledger, currency: string, records: SettlementRecord[]): RemittanceTotals {
  const decimals = minorUnits(currency);
  const settleAmount = sum(
    records.flatMap((r) => [r.billed_exchange_rate_amount, r.service_fee_amount, r.fee_amount]),
    decimals,
  );
  const vatAmount = sum(
    records.flatMap((r) => [r.service_fee_vat_amount, r.fee_vat_amount]),
    decimals,
  );
  const adjustAmount = zeroAmount(decimals);
  const remittanceAmount = sum([settleAmount, vatAmount, adjustAmount], decimals);
  const reported = reportedRecords(ledger, records);
  return { currency, records, reported, settleAmount, vatAmount, adjustAmount, remittanceAmount };
}

/** The remittances carrying the movements of one trade day, one per currency, in currency order. */
function remittancesOf(ledger: Ledger, mid: string, tradeDay: string): RemittanceTotals[] {
  const byCurrency = new Map<string, Movement[]>();
  for (const movement of movementsOf(ledger, mid)) {
    if (movement.settleDay !== tradeDay) continue;
    const { currency } = movement.payment;
    const movements = byCurrency.get(currency);
    if (movements) movements.push(movement);
    else byCurrency.set(currency, [movement]);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, movements]) =>
      totalsOf(ledger, currency, movements.sort(byTradeDate).map(settlementRecord)),
    );
}

/**
 * H, D and T per remittance: arrays (D an array of record arrays) when there are several or none, single objects
 * (D the record array) when there is exactly one, as the seed samples show.
 */
function remittanceSections<H>(
  header: (totals: RemittanceTotals) => H,
  remittances: readonly RemittanceTotals[],
) {
  const tail = (totals: RemittanceTotals) => ({ total_count: String(totals.records.length) });
  const [only] = remittances;
  if (only && remittances.length === 1) return { H: header(only), D: only.reported, T: tail(only) };
  return {
    H: remittances.map(header),
    D: remittances.map((totals) => totals.reported),
    T: remittances.map(tail),
  };
}

const reconciliation = { method: "POST", auth: "basic" } as const;

export const reconciliationRoutes: readonly RouteDefinition[] = [
  defineRoute({
    ...reconciliation,
    name: "reconciliation.transactions",
    path: "/v1/reconciliation/transactions",
    handler: (request, { merchant, ledger, clock }) => {
      const body = parseFields(transactionsRequest, request.body);
      requireOwnMid(body.mid, merchant);
      const today = ledger.date(clock.now());
      if (body.from_date < earliestDay(today)) {
        throw new InvalidField("from_date", "must be within the past 5 years");
      }
      const records = [...movementsOf(ledger, merchant.mid)]
        .filter((movement) => {
          const day = dayOf(movement.tradeDate);
          return day >= body.from_date && day <= body.to_date;
        })
        .sort(byTradeDate)
        .map(transactionRecord);
      return okReply({
        H: { request_date: today, from_date: body.from_date, to_date: body.to_date },
        D: records.length > 0 ? records : [NO_DATA],
        T: { total_count: String(records.length) },
      });
    },
  }),
  defineRoute({
    ...reconciliation,
    name: "reconciliation.settlements",
    path: "/v1/reconciliation/settlements",
    handler: (request, { merchant, ledger, clock }) => {
      const body = parseFields(settlementsRequest, request.body);
      requireOwnMid(body.mid, merchant);
      const today = ledger.date(clock.now());
      if (body.remittance_date >= today) {
        throw new InvalidField("remittance_date", "is available from the day after the deposit");
      }
      const settleDate = shiftDay(body.remittance_date, -SETTLEMENT_DELAY_DAYS);
      const header = (totals: RemittanceTotals) => ({
        request_date: today,
        remittance_date: body.remittance_date,
        version: SETTLEMENT_VERSION,
        settle_date: settleDate,
        settle_currency: totals.currency,
        settle_amount: totals.settleAmount,
        vat_fee_amount: totals.vatAmount,
        etc_vat_amount: zeroAmount(minorUnits(totals.currency)),
        adjust_amount: totals.adjustAmount,
        remittance_amount: totals.remittanceAmount,
        exchange_rate: "1",
        deposit_currency: totals.currency,
        deposit_amount: totals.remittanceAmount,
      });
      return okReply(remittanceSections(header, remittancesOf(ledger, merchant.mid, settleDate)));
    },
  }),
  defineRoute({
    ...reconciliation,
    name: "reconciliation.expected-settlements",
    path: "/v1/reconciliation/expected-settlements",
    handler: (request, { merchant, ledger, clock }) => {
      const body = parseFields(expectedSettlementsRequest, request.body);
      requireOwnMid(body.mid, merchant);
      const today = ledger.date(clock.now());
      if (body.pre_remittance_date > today) {
        throw new InvalidField("pre_remittance_date", "is available from two days after the trade date");
      }
      const tradeDay = shiftDay(body.pre_remittance_date, -SETTLEMENT_DELAY_DAYS);
      const header = (totals: RemittanceTotals) => ({
        request_date: today,
        pre_remittance_date: body.pre_remittance_date,
        version: SETTLEMENT_VERSION,
        pre_settle_date: tradeDay,
        settle_currency: totals.currency,
        settle_amount: totals.settleAmount,
        adjust_amount: totals.adjustAmount,
        remittance_amount: totals.remittanceAmount,
      });
      return okReply(remittanceSections(header, remittancesOf(ledger, merchant.mid, tradeDay)));
    },
  }),
];
