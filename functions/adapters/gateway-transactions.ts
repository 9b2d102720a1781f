import type { GatewayOutcome } from "../core/base/outcome";
import type { GatewayRecord, GatewayRecords } from "../core/refunds/reconciliation";
import type { ReconciliationClient } from "../gateway/resources/reconciliation";
import type { TransactionRecord } from "../gateway/schemas/reconciliation";

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
