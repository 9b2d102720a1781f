import type { SubscriptionStore } from "../core/ports/billing-repository";
import { type RevenueNow, revenueNow } from "../core/reports/revenue";
import { logger } from "../lambda/observability";
import { putRevenueNow } from "../lambda/revenue-metrics";
import { scheduledEventSchema } from "../lambda/scheduled-event";

/**
 * Daily (EventBridge Scheduler): each currency's MRR and paying subscriptions now (README, Revenue report), summed from
 * the plans the list index holds of the active and past-due subscriptions, put as the dashboard's MRR and
 * PayingSubscriptions metrics, logged and returned.
 */
export async function run(
  event: unknown,
  services: { readonly repository: Pick<SubscriptionStore, "listPayingPlans"> },
): Promise<{ readonly currencies: readonly RevenueNow[] }> {
  const invocation = scheduledEventSchema.parse(event);
  const currencies = await revenueNow(services.repository.listPayingPlans());
  putRevenueNow(currencies);
  logger.info("revenue measured", { ...invocation, currencies });
  return { currencies };
}
