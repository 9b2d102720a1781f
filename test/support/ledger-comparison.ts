import type { ChargeAttempt } from "../../functions/core/model";
import { attemptKeyOf } from "../../functions/core/order-id";
import type { BillingStack } from "../../local/billing-stack";

export interface LedgerComparison {
  readonly ours: { readonly attempts: number; readonly succeeded: number };
  readonly sandbox: { readonly sales: number };
  /** Subscription periods the gateway charged more than once. */
  readonly doubleCharges: readonly string[];
  /** Records that differ: a sale we do not know, a success the gateway has no sale for, amounts or ids that differ. */
  readonly mismatches: readonly string[];
  readonly periods: ReadonlyMap<string, number>;
  subscriptionsNotAtPeriod(period: number): readonly string[];
}

/**
 * Our ledger against the sandbox's, record for record: every sale at the gateway is a succeeded attempt of ours with
 * the same order_id, transaction_id and amount, and no subscription period was sold twice.
 */
export async function compareLedgers(
  stack: BillingStack,
  subscriptionIds: readonly string[],
): Promise<LedgerComparison> {
  const ours = new Map<string, ChargeAttempt>();
  const periods = new Map<string, number>();
  for (const id of subscriptionIds) {
    for (const attempt of await stack.services.repository.listAttempts(id))
      ours.set(attempt.order_id, attempt);
    periods.set(id, (await stack.services.repository.getSubscription(id))?.period ?? -1);
  }
  const mismatches: string[] = [];
  const soldPeriods = new Map<string, number>();
  let sales = 0;
  for (const payment of stack.sandbox.state.payments.payments()) {
    if (payment.status !== "SALE") continue;
    const key = attemptKeyOf(payment.orderId);
    if (!key || !periods.has(key.subscription_id)) continue;
    sales += 1;
    const period = `${key.subscription_id}/${key.period}`;
    soldPeriods.set(period, (soldPeriods.get(period) ?? 0) + 1);
    const attempt = ours.get(payment.orderId);
    if (attempt?.status !== "succeeded")
      mismatches.push(`${payment.orderId}: sold at the gateway, ${attempt?.status ?? "absent"} here`);
    else if (attempt.transaction_id !== payment.transactionId || attempt.amount !== payment.amount) {
      mismatches.push(`${payment.orderId}: transaction or amount differs`);
    }
  }
  let succeeded = 0;
  for (const attempt of ours.values()) {
    if (attempt.status !== "succeeded") continue;
    succeeded += 1;
    const sale = stack.sandbox.state.payments.findTransaction(
      stack.sandbox.merchants.list()[0]?.mid ?? "",
      attempt.transaction_id ?? "",
    );
    if (sale?.status !== "SALE")
      mismatches.push(`${attempt.order_id}: succeeded here, no sale at the gateway`);
  }
  return {
    ours: { attempts: ours.size, succeeded },
    sandbox: { sales },
    doubleCharges: [...soldPeriods].filter(([, count]) => count > 1).map(([period]) => period),
    mismatches,
    periods,
    subscriptionsNotAtPeriod: (period) => [...periods].filter(([, at]) => at !== period).map(([id]) => id),
  };
}
