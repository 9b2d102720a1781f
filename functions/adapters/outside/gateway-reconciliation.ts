import type { GatewayOutcome } from "../../core/base/outcome";
import type { SettledKind } from "../../core/ports/settlement-store";
import type { GatewayRecord, GatewayRecords } from "../../core/refunds/reconciliation";
import type { Remittance, Remittances, SettledMovement } from "../../core/refunds/settlements";
import type { ReconciliationClient } from "../../gateway/resources/reconciliation";
import type {
  ExpectedSettlementHeader,
  Remittance as GatewayRemittance,
  SettlementHeader,
  SettlementRecord,
  TransactionRecord,
} from "../../gateway/schemas/reconciliation";

/**
 * The trade types that mark a chargeback's deduction in the transaction list. The gateway has not published that
 * list (seed 001: "the full list of values: not shown"); its settlement list documents "C" for a chargeback, and the
 * sandbox lists one as T200. A reversal of any other type that matches no refund of ours stays a mismatch.
 */
const CHARGEBACK_TRADE_TYPES: ReadonlySet<string> = new Set(["C", "T200"]);

/** A listed transaction in the core's words. A payment is its own original; a reversal names the payment. */
function recordOf(transaction: TransactionRecord): GatewayRecord {
  const original = transaction.original_transaction_id;
  const isPayment = original === "" || original === transaction.transaction_id;
  return {
    transaction_id: transaction.transaction_id,
    ...(isPayment ? {} : { reverses: original }),
    ...(!isPayment && CHARGEBACK_TRADE_TYPES.has(transaction.trade_type) ? { chargeback: true } : {}),
    order_id: transaction.order_id,
    amount: transaction.request_amount,
    // trade_date is YYYYMMDDHHMMSS in the gateway's calendar.
    day: transaction.trade_date.slice(0, 8),
    at: transaction.trade_date,
  };
}

/** The reconciliation's view of the gateway: the transactions of a range of its days, on the typed client. */
export function createGatewayTransactions(client: Pick<ReconciliationClient, "transactions">) {
  return async (from: string, to: string): Promise<GatewayOutcome<GatewayRecords>> => {
    const outcome = await client.transactions(from, to);
    if (outcome.kind !== "success") return outcome;
    return {
      kind: "success",
      value: { records: outcome.value.D.map(recordOf), notices: outcome.value.notices },
    };
  };
}

/** A settlement record's movement: C is a chargeback's deduction; else S a sale, R and P (partial) refunds. */
function kindOf(record: SettlementRecord): SettledKind {
  if (record.trade_type === "C") return "chargeback";
  return record.transaction_type === "S" ? "sale" : "refund";
}

const magnitude = (amount: string) => amount.replace(/^-/, "");
/** Two of the gateway's amounts added as magnitudes, in hundredths (the core reads amounts as decimal strings). */
const addMagnitudes = (a: string, b: string) =>
  ((Math.round(Math.abs(Number(a)) * 100) + Math.round(Math.abs(Number(b)) * 100)) / 100).toFixed(2);

/**
 * A settlement record in the core's words. The seed documents the fees' meaning, not their sign (the sandbox writes
 * them negative): fees and VAT are passed as magnitudes, and the core reads from gross and net whether they were
 * deducted or given back.
 */
function movementOf(record: SettlementRecord): SettledMovement {
  return {
    kind: kindOf(record),
    transaction_id: record.transaction_id,
    order_id: record.order_id,
    amount: record.request_amount,
    currency: record.request_currency,
    gross: record.billed_exchange_rate_amount,
    net: record.request_sub_amount_total,
    fees: addMagnitudes(magnitude(record.service_fee_amount), magnitude(record.fee_amount)),
    vat: addMagnitudes(magnitude(record.service_fee_vat_amount), magnitude(record.fee_vat_amount)),
    at: record.trade_date,
  };
}

/** A remittance of either list: the settlement's header states its deposit, the forecast's does not. */
function remittanceOf(
  date: string,
  remittance: GatewayRemittance<SettlementHeader | ExpectedSettlementHeader>,
): Remittance {
  const { header } = remittance;
  const deposit =
    "deposit_currency" in header
      ? { deposit_currency: header.deposit_currency, deposit_amount: header.deposit_amount }
      : { deposit_currency: header.settle_currency, deposit_amount: header.remittance_amount };
  return {
    date,
    currency: header.settle_currency,
    movements: remittance.records.map(movementOf),
    stated: {
      count: Number(remittance.total_count),
      net: header.remittance_amount,
      adjust: header.adjust_amount,
      ...deposit,
    },
  };
}

/** The reconciliation's view of the gateway's payouts: settlements and expected settlements of a remittance date. */
export function createGatewaySettlements(
  client: Pick<ReconciliationClient, "settlements" | "expectedSettlements">,
) {
  const remittancesOf = async (
    date: string,
    outcome: Promise<
      GatewayOutcome<{ remittances: GatewayRemittance<SettlementHeader | ExpectedSettlementHeader>[] }>
    >,
  ): Promise<GatewayOutcome<Remittances>> => {
    const answer = await outcome;
    if (answer.kind !== "success") return answer;
    const { remittances } = answer.value;
    return {
      kind: "success",
      value: {
        remittances: remittances.map((remittance) => remittanceOf(date, remittance)),
        notices: remittances.flatMap((remittance) => remittance.notices),
      },
    };
  };
  return {
    settlements: (date: string) => remittancesOf(date, client.settlements(date)),
    expectedSettlements: (date: string) => remittancesOf(date, client.expectedSettlements(date)),
  };
}
