import { reconciliationRunSchema } from "../../functions/core/refunds/settlements";
import { gatewayCalendar } from "../../functions/gateway/calendar";
import type { LocalStack } from "../stack/local-stack";

// The run's days reconciled as the daily schedule would, once everything has settled and the gateway answers again:
// its transactions and its payouts (every sale, refund and chargeback the sandbox paid out) against the ledger.

export interface ReconciliationAudit {
  readonly days: number;
  readonly gatewayRecords: number;
  readonly payouts: number;
  /** Each mismatch of either kind, in words (each a violation). */
  readonly mismatches: readonly string[];
}

/** One invocation of reconcile-ledger over the days from `from` (an instant of the first day) to yesterday. */
export async function reconcileRun(local: LocalStack, from: Date): Promise<ReconciliationAudit> {
  const first = gatewayCalendar.dayOf(from);
  const last = gatewayCalendar.shift(gatewayCalendar.dayOf(local.clock.now()), -1);
  const run = reconciliationRunSchema.parse(
    await local.invoke("reconcile-ledger", { from: first, to: last }),
  );
  let days = 0;
  for (let day = first; day <= last; day = gatewayCalendar.shift(day, 1)) days += 1;
  return {
    days,
    gatewayRecords: run.gateway_records,
    payouts: run.payouts.length,
    mismatches: [
      ...run.mismatches.map(
        (each) => `${each.kind} ${each.line} ${each.order_id} ${each.transaction_id ?? ""}`,
      ),
      ...run.settlement_mismatches.map(
        (each) =>
          `payout ${each.remittance_date ?? "-"}: ${each.kind} ${each.line} ${each.order_id ?? ""} ${each.transaction_id ?? ""}`,
      ),
    ],
  };
}
