import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { RevenueMovement } from "../core/base/events";
import { type MovementKind, movementTotals, type RevenueNow } from "../core/reports/revenue";
import { putCurrencyMetrics } from "./observability";

// The dashboard's revenue figures (README, Revenue report), per currency: the MRR movements events carry as they are
// delivered, and the MRR and paying subscriptions the daily measure sums.

const MOVEMENT_METRICS: Readonly<Record<MovementKind, string>> = {
  new: "NewMRR",
  expansion: "ExpansionMRR",
  contraction: "ContractionMRR",
  churned: "ChurnedMRR",
};

/**
 * Puts the MRR movements of an invocation's delivered events, one record per currency (delivery is at least once: a
 * re-delivery counts them again).
 */
export function putRevenueMovements(
  events: Iterable<{ readonly mrr_movements?: readonly RevenueMovement[] }>,
): void {
  for (const [currency, byKind] of movementTotals(events))
    putCurrencyMetrics(
      currency,
      [...byKind].map(([kind, value]) => ({ name: MOVEMENT_METRICS[kind], unit: MetricUnit.NoUnit, value })),
    );
}

/** Puts each currency's MRR and paying subscriptions now. */
export function putRevenueNow(figures: readonly RevenueNow[]): void {
  for (const { currency, mrr, active } of figures)
    putCurrencyMetrics(currency, [
      { name: "MRR", unit: MetricUnit.NoUnit, value: Number(mrr) },
      { name: "PayingSubscriptions", unit: MetricUnit.Count, value: active },
    ]);
}
