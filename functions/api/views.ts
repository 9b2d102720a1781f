import { subscriptionPeriod } from "../core/billing-period";
import { chargeKindOf } from "../core/charge-kind";
import type { ChargeAttempt, MaskedCard, Plan, RefundRecord, Subscription } from "../core/model";
import { orderIdFor } from "../core/order-id";
import type {
  ChargeView,
  CreateSubscriptionBody,
  RefundView,
  SubscriptionView,
} from "./merchant-api-schemas";

// What the merchant API shows of the billing records: built field by field, so nothing stored (token_id, customer,
// lease) reaches a response unless a view declares it.

const planView = ({ amount, currency, interval_months }: Plan) => ({ amount, currency, interval_months });

export function subscriptionView(subscription: Subscription): SubscriptionView {
  const { plan, period } = subscription;
  // `period` is the next period to charge: the last paid one is just below it (none runs when it ended before a
  // pause it resumed from).
  const paid = period === 0 ? undefined : subscriptionPeriod(subscription, period - 1);
  return {
    subscription_id: subscription.subscription_id,
    status: subscription.status,
    ...(subscription.status_reason === undefined ? {} : { status_reason: subscription.status_reason }),
    billing: subscription.billing_mode,
    external_id: subscription.customer.external_id ?? null,
    metadata: { ...subscription.metadata },
    plan: planView(plan),
    current_period: paid
      ? { index: paid.index, start: paid.start.toISOString(), end: paid.end.toISOString() }
      : null,
    next_charge_at: subscription.next_charge_at ?? null,
    card: subscription.card ? { first4: subscription.card.first4, last4: subscription.card.last4 } : null,
    ...(subscription.dunning === undefined ? {} : { dunning: { ...subscription.dunning } }),
    cancel_at: subscription.cancel_at ?? null,
    trial_end: subscription.trial_end ?? null,
    resume_at: subscription.resume_at ?? null,
    scheduled_plan: subscription.scheduled_plan ? planView(subscription.scheduled_plan) : null,
    created_at: subscription.created_at,
  };
}

/**
 * A charge is one attempt of the ledger. Its id is the attempt key as an order_id (attemptKeyOf reads it back); it
 * differs from order_id only for a charge the gateway ran on a recurring plan, which carries the gateway's order_id.
 */
export function chargeView(attempt: ChargeAttempt): ChargeView {
  return {
    charge_id: orderIdFor(attempt),
    kind: chargeKindOf(attempt.period),
    period: attempt.period,
    attempt: attempt.attempt,
    order_id: attempt.order_id,
    amount: attempt.amount,
    currency: attempt.currency,
    status: attempt.status,
    ...(attempt.transaction_id === undefined ? {} : { transaction_id: attempt.transaction_id }),
    refunded_amount: attempt.refunded_amount ?? "0",
    created_at: attempt.created_at,
  };
}

export function refundView(refund: RefundRecord): RefundView {
  return {
    refund_id: refund.refund_id,
    charge_id: orderIdFor(refund),
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    status: refund.status,
    ...(refund.refund_transaction_id === undefined
      ? {}
      : { refund_transaction_id: refund.refund_transaction_id }),
    created_at: refund.created_at,
  };
}

/** What identifies a card without being card data (first and last four digits, expiry): for request digests. */
export function maskedCardOf(card: CreateSubscriptionBody["card"]): MaskedCard & { readonly expiry: string } {
  return { first4: card.number.slice(0, 4), last4: card.number.slice(-4), expiry: card.expiry };
}
