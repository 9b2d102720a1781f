import { isAdHocPeriod } from "../base/charge-kind";
import { CHECKOUT_EXPIRED, type ChargeAttempt, type Subscription } from "../base/model";
import { fromCents, toCents } from "../base/money";
import { unusedPartCents } from "../base/proration";
import { creditedFrom, lastPaidCharge } from "./plan-credit";
import { settleProration } from "./proration-settlement";
import { balanceCents, type RefundDeps, type RefundOutcome, refundCharge } from "./refunds";

/** What a cancel now gives back of the last paid period: nothing, its unused part, or all of it. */
export type CancelRefund = "none" | "prorated" | "full";

/**
 * Refunds the last paid period's charge on a cancel now (README, Subscription lifecycle): in full, or the part of the
 * period not yet used at `now` (rounded down to the currency's minor unit), never more than its refundable balance.
 * The refund_id follows from the charge, so repeating the cancel never refunds twice. Undefined: nothing to refund.
 */
export async function refundUnusedPeriod(
  subscription: Subscription,
  mode: CancelRefund,
  deps: RefundDeps,
): Promise<RefundOutcome | undefined> {
  if (mode === "none" || subscription.period === 0) return undefined;
  const lastPaid = subscription.period - 1;
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const charge = lastPaidCharge(subscription, ledger);
  if (charge === undefined) return undefined;
  const balance = balanceCents(charge);
  // What a plan credit gave back of the period is no longer paid for: the rest of it is the charge less its difference.
  const unused = async () =>
    unusedPartCents(
      subscription,
      lastPaid,
      {
        cents: toCents(charge.amount) - (await creditedFrom(subscription, charge, deps)),
        currency: charge.currency,
      },
      deps.clock.now(),
    );
  const cents = mode === "full" ? balance : Math.min(balance, await unused());
  if (cents <= 0) return undefined;
  return refundCharge(
    {
      charge,
      refund_id: `${charge.order_id}-X`,
      amount: fromCents(cents, charge.currency),
      reason: `canceled, ${mode} refund`,
    },
    deps,
  );
}

/**
 * A sale that settled after its subscription was canceled, for a period the subscription never reached (its charge was
 * in flight when the cancel came, or a sign-up's payment came after the checkout was canceled): the customer never gets
 * that period, so its sale goes back in full, once (its refund_id follows from the charge), announced as a refund. So
 * does a checkout's payment that came after the checkout expired. A sale the subscription already counted, or an ad
 * hoc charge, stays.
 */
export async function refundSaleAfterCancel(
  line: ChargeAttempt,
  deps: RefundDeps,
): Promise<RefundOutcome | undefined> {
  if (line.status !== "succeeded" || isAdHocPeriod(line.period)) return undefined;
  const subscription = await deps.repository.getSubscription(line.subscription_id);
  return subscription && neverReached(subscription, line)
    ? refundNeverReached(subscription, line, deps)
    : undefined;
}

/** A paid period line of a canceled subscription that never reached it. */
const neverReached = (subscription: Subscription, line: ChargeAttempt) =>
  subscription.status === "canceled" &&
  line.status === "succeeded" &&
  !isAdHocPeriod(line.period) &&
  line.period >= subscription.period;

const refundNeverReached = (subscription: Subscription, line: ChargeAttempt, deps: RefundDeps) =>
  refundWholeSale(
    line,
    subscription.status_reason === CHECKOUT_EXPIRED
      ? PAID_AFTER_EXPIRY
      : "canceled before the charge settled",
    deps,
  );

/** Why a payment made in a window after the window expired goes back. */
export const PAID_AFTER_EXPIRY = "expired before the payment settled";

/** A sale that goes back whole, once: its refund_id follows from the charge. */
export const refundWholeSale = (line: ChargeAttempt, reason: string, deps: RefundDeps) =>
  refundCharge({ charge: line, refund_id: `${line.order_id}-A`, reason }, deps);

/**
 * Every sale of a canceled subscription for something it never got goes back, once each: a period it never reached
 * (closed paid while its subscription missed the transition, a crash between the two writes, and then canceled), and
 * the proration of a plan change still pending. Run by the cancel, and by the charge worker whenever it meets the
 * canceled subscription again.
 */
export async function refundSalesAfterCancel(subscription: Subscription, deps: RefundDeps): Promise<void> {
  if (subscription.status !== "canceled") return;
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  for (const line of ledger) {
    if (line.order_id === subscription.pending_plan_order) await settleProration(subscription, line, deps);
    else if (neverReached(subscription, line)) await refundNeverReached(subscription, line, deps);
  }
}
