import type { ChargeAttempt, Subscription } from "../../functions/core/base/model";
import { attemptKeyOf } from "../../functions/core/base/order-id";
import { isFreeCharge } from "../../functions/core/base/plan-price";
import { addAmounts, compareAmounts, subtractAmounts } from "../../sandbox/shared/decimal";
import type { PaymentRecord } from "../../sandbox/state/payment-store";
import type { BillingStack } from "../stack/billing-stack";

export interface LedgerComparison {
  readonly ours: { readonly attempts: number; readonly succeeded: number };
  readonly sandbox: { readonly sales: number };
  /** Subscription periods the gateway charged more than once. */
  readonly doubleCharges: readonly string[];
  /**
   * Records that differ: a sale we do not know, a success the gateway has no sale for, amounts, ids or refunded
   * amounts that differ.
   */
  readonly mismatches: readonly string[];
  /** Canceled subscriptions whose token is still active at the gateway: a token kept that nobody needs. */
  readonly liveTokens: readonly string[];
  readonly periods: ReadonlyMap<string, number>;
  subscriptionsNotAtPeriod(period: number): readonly string[];
}

/** What the comparison reads of a gateway transaction. */
export type GatewayPayment = Pick<
  PaymentRecord,
  "orderId" | "transactionId" | "status" | "amount" | "balance" | "recurringId" | "chargeback"
>;

/** Both ledgers as read: our subscriptions and their attempts, and the gateway's transactions. */
export interface LedgerRecords {
  readonly subscriptions: readonly (Pick<Subscription, "subscription_id" | "period" | "recurring_id"> &
    Partial<Pick<Subscription, "status" | "token_id">>)[];
  readonly attempts: readonly ChargeAttempt[];
  readonly payments: Iterable<GatewayPayment>;
  /** The gateway's tokens: their status by token_id. */
  readonly tokenStatuses?: ReadonlyMap<string, string>;
}

/**
 * Our ledger against the sandbox's, record for record (subscriptions never found count as period -1).
 */
export async function compareLedgers(
  stack: BillingStack,
  subscriptionIds: readonly string[],
): Promise<LedgerComparison> {
  const { repository } = stack.services;
  const subscriptions: LedgerRecords["subscriptions"][number][] = [];
  const attempts: ChargeAttempt[] = [];
  for (const id of subscriptionIds) {
    attempts.push(...(await repository.listAttempts(id)));
    const subscription = await repository.getSubscription(id);
    subscriptions.push(subscription ?? { subscription_id: id, period: -1 });
  }
  const tokenStatuses = new Map(
    [...stack.sandbox.state.tokens.all()].map((token) => [token.tokenId, token.status]),
  );
  return compareLedgerRecords({
    subscriptions,
    attempts,
    payments: stack.sandbox.state.payments.payments(),
    tokenStatuses,
  });
}

/**
 * Every sale at the gateway is a succeeded attempt of ours with the same order_id, transaction_id and amount, and
 * what the gateway refunded of it is what we record as refunded; every succeeded attempt has its sale (but a free
 * one, which has none); no subscription period was sold twice. A sale belongs to a subscription by its order_id (`<id>-<period>-<attempt>`:
 * scheduled and ad hoc charges alike) or, for a charge the gateway made on a registered recurring plan (order_id
 * `<recurring_id>-<n>`), by the subscription's recurring_id; the period of such a sale is the one our ledger
 * recorded it under. Sales of other subscriptions are left out.
 */
export function compareLedgerRecords(records: LedgerRecords): LedgerComparison {
  const ours = new Map(records.attempts.map((attempt) => [attempt.order_id, attempt]));
  const periods = new Map(records.subscriptions.map((s) => [s.subscription_id, s.period]));
  const byRecurringId = new Map(
    records.subscriptions.flatMap((s) => (s.recurring_id === undefined ? [] : [[s.recurring_id, s]])),
  );
  const mismatches: string[] = [];
  const soldPeriods = new Map<string, number>();
  const sales = new Map<string, GatewayPayment>();
  for (const payment of records.payments) {
    if (payment.status !== "SALE") continue;
    const attempt = ours.get(payment.orderId);
    const period = soldPeriodOf(payment, attempt, periods, byRecurringId);
    if (period === undefined) continue;
    sales.set(payment.transactionId, payment);
    soldPeriods.set(period, (soldPeriods.get(period) ?? 0) + 1);
    const difference = saleDifference(payment, attempt);
    if (difference !== undefined) mismatches.push(`${payment.orderId}: ${difference}`);
  }
  let succeeded = 0;
  for (const attempt of ours.values()) {
    if (attempt.status !== "succeeded") continue;
    succeeded += 1;
    // A period a whole discount made free is paid with no sale (README, Coupons): there must be none.
    if (isFreeCharge(attempt)) {
      if (attempt.transaction_id !== undefined) mismatches.push(`${attempt.order_id}: free, yet with a sale`);
      continue;
    }
    if (!sales.has(attempt.transaction_id ?? ""))
      mismatches.push(`${attempt.order_id}: succeeded here, no sale at the gateway`);
  }
  const liveTokens = records.subscriptions
    .filter(({ status, token_id }) => status === "canceled" && token_id !== undefined)
    .filter(({ token_id = "" }) => records.tokenStatuses?.get(token_id) === "active")
    .map(({ subscription_id, token_id }) => `${subscription_id}: canceled, token ${token_id} still active`);
  return {
    ours: { attempts: ours.size, succeeded },
    sandbox: { sales: sales.size },
    doubleCharges: [...soldPeriods].filter(([, count]) => count > 1).map(([period]) => period),
    mismatches,
    liveTokens,
    periods,
    subscriptionsNotAtPeriod: (period) => [...periods].filter(([, at]) => at !== period).map(([id]) => id),
  };
}

/** `<subscription>/<period>` a sale paid for, or undefined when the sale is not one of these subscriptions'. */
function soldPeriodOf(
  payment: GatewayPayment,
  attempt: ChargeAttempt | undefined,
  periods: ReadonlyMap<string, number>,
  byRecurringId: ReadonlyMap<string, { readonly subscription_id: string }>,
): string | undefined {
  const key = attemptKeyOf(payment.orderId);
  if (key && periods.has(key.subscription_id)) return `${key.subscription_id}/${key.period}`;
  const plan = payment.recurringId === undefined ? undefined : byRecurringId.get(payment.recurringId);
  if (!plan) return undefined;
  // A recurring sale we never recorded still counts, under its own order id (it is a mismatch anyway).
  return `${plan.subscription_id}/${attempt?.period ?? payment.orderId}`;
}

/** Why a gateway sale and our line for its order disagree, if they do. */
function saleDifference(payment: GatewayPayment, attempt: ChargeAttempt | undefined): string | undefined {
  if (attempt?.status !== "succeeded") return `sold at the gateway, ${attempt?.status ?? "absent"} here`;
  if (attempt.transaction_id !== payment.transactionId || attempt.amount !== payment.amount)
    return "transaction or amount differs";
  // The balance is what refunds and a deducted chargeback left of the amount.
  const chargedBack = payment.chargeback?.deductedDate === undefined ? "0" : payment.chargeback.amount;
  const taken = addAmounts(payment.balance, chargedBack);
  const refunded = subtractAmounts(payment.amount, taken);
  if (compareAmounts(refunded, attempt.refunded_amount ?? "0") !== 0)
    return `refunded ${refunded} at the gateway, ${attempt.refunded_amount ?? "0"} here`;
  return undefined;
}
