import type { ChargePolicy } from "../base/charge-policy";
import type { Discount, Subscription } from "../base/model";
import type { InvalidInput } from "../base/money";
import type { Failure } from "../base/outcome";
import { redeemCoupon } from "../catalog/coupons";
import { type Applied, applyInput } from "../machine/apply-input";
import type { SubscriptionInput } from "../machine/subscription-input";
import type { BillingRepository } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { CouponStore } from "../ports/coupon-store";
import type { PaymentGateway } from "../ports/payment-gateway";
import type { ChargeQueue } from "../ports/queues";
import { type CancelRefund, refundSalesAfterCancel, refundUnusedPeriod } from "../refunds/cancel-refund";

export interface ChangeDeps {
  readonly repository: BillingRepository;
  readonly gateway: PaymentGateway;
  readonly clock: Clock;
  /** Where a cancel hands its token's deletion: the charge worker retires a canceled subscription's token. */
  readonly queue: ChargeQueue;
  /** The in-flight window of a cancel's refund, and how its credit note is issued. */
  readonly policy: Pick<ChargePolicy, "inflightWindowMs" | "invoicing">;
}

export type ChangeResult =
  | { readonly kind: "changed"; readonly subscription: Subscription }
  | { readonly kind: "not_found" }
  | { readonly kind: "conflict"; readonly reason: string }
  | { readonly kind: "refused"; readonly failure: Failure };

export async function load(
  subscriptionId: string,
  deps: Pick<ChangeDeps, "repository">,
): Promise<Subscription | undefined> {
  return deps.repository.getSubscription(subscriptionId);
}

/** The machine's step on `input` for the subscription as it stands now. */
async function applyTo(
  subscriptionId: string,
  input: SubscriptionInput,
  deps: Pick<ChangeDeps, "repository" | "clock">,
): Promise<ChangeResult> {
  const subscription = await load(subscriptionId, deps);
  if (!subscription) return { kind: "not_found" };
  return resultOf(await applyInput(subscription, input, deps));
}

/** What a subscription's edit may change besides its coupon (README, Subscription lifecycle: update_customer). */
interface CustomerEdit {
  readonly external_id?: string | null;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly cancel_at_period_end?: false;
}

/** The SaaS's own references, and an undone scheduled cancel. */
export function updateCustomer(
  subscriptionId: string,
  change: CustomerEdit,
  deps: Pick<ChangeDeps, "repository" | "clock">,
): Promise<ChangeResult> {
  return applyTo(subscriptionId, { kind: "update_customer", ...change }, deps);
}

/**
 * The same, and the coupon (POST /v1/subscriptions/{id}): a coupon is redeemed for the subscription first (counted
 * once however often it is applied), and its discount takes part from the next period charge on; null removes it.
 */
export async function editSubscription(
  subscriptionId: string,
  change: CustomerEdit & { readonly coupon?: string | null },
  deps: Pick<ChangeDeps, "repository" | "clock"> & { readonly coupons: CouponStore },
): Promise<ChangeResult | InvalidInput> {
  const { coupon, ...edits } = change;
  if (coupon === undefined) return updateCustomer(subscriptionId, edits, deps);
  const subscription = await load(subscriptionId, deps);
  if (!subscription) return { kind: "not_found" };
  let discount: Discount | null = null;
  if (coupon !== null) {
    const grant = await redeemCoupon(
      coupon,
      {
        subscription_id: subscriptionId,
        currency: subscription.plan.currency,
        billing: subscription.billing_mode,
        applied: subscription.discount?.coupon_id,
      },
      deps,
    );
    if (grant.kind !== "granted") return grant;
    discount = grant.discount;
  }
  return resultOf(await applyInput(subscription, { kind: "update_customer", ...edits, discount }, deps));
}

/** No charges until resumed, or until `resumeAt` (README, Subscription lifecycle: pause). */
export function pauseSubscription(
  subscriptionId: string,
  resumeAt: string | undefined,
  deps: Pick<ChangeDeps, "repository" | "clock">,
): Promise<ChangeResult> {
  return applyTo(subscriptionId, { kind: "pause", resume_at: resumeAt }, deps);
}

/**
 * Charging again. A period due at once (the paid one ended during the pause) goes to the charge worker now rather
 * than at the next charge run; a lost hand-over is made good by that run.
 */
export async function resumeSubscription(subscriptionId: string, deps: ChangeDeps): Promise<ChangeResult> {
  const result = await applyTo(subscriptionId, { kind: "resume" }, deps);
  if (result.kind !== "changed") return result;
  const { subscription } = result;
  const due = subscription.next_charge_at;
  if (subscription.status === "active" && due !== undefined && Date.parse(due) <= deps.clock.now().getTime())
    await deps.queue.send([{ subscription_id: subscription.subscription_id, period: subscription.period }]);
  return result;
}

/**
 * The overdue period charged now with the card on file (the customer's "retry now"): its next dunning retry brought
 * forward and handed to the charge worker, which claims the attempt like any other (a lost hand-over is made good by
 * the next charge run, the retry being due).
 */
export async function retryOverdueNow(subscriptionId: string, deps: ChangeDeps): Promise<ChangeResult> {
  const result = await applyTo(subscriptionId, { kind: "retry_now" }, deps);
  if (result.kind === "changed") {
    const { subscription } = result;
    await deps.queue.send([{ subscription_id: subscription.subscription_id, period: subscription.period }]);
  }
  return result;
}

export function resultOf(applied: Applied): ChangeResult {
  switch (applied.kind) {
    case "applied":
      return { kind: "changed", subscription: applied.subscription };
    case "stale":
      return { kind: "conflict", reason: "subscription changed meanwhile; try again" };
    case "refused":
      return { kind: "conflict", reason: applied.reason };
    case "unchanged":
      return { kind: "changed", subscription: applied.subscription };
  }
}

/** The charge worker deletes a canceled subscription's token at the gateway, retrying through the queue. */
async function retireTokenLater(subscription: Subscription, deps: ChangeDeps): Promise<void> {
  if (subscription.token_id === undefined) return;
  await deps.queue.send([{ subscription_id: subscription.subscription_id, period: subscription.period }]);
}

/** Cancel at the end of the paid period (README, Subscription lifecycle): access runs until then; undone by an update. */
export function cancelAtPeriodEnd(subscriptionId: string, deps: ChangeDeps): Promise<ChangeResult> {
  return applyTo(subscriptionId, { kind: "cancel_at_period_end" }, deps);
}

/**
 * Ends the subscription: nothing more is charged (a gateway-managed plan is deleted at the gateway first), and its
 * token is deleted at the gateway by the charge worker. Canceling again hands the token over again, so a hand-over
 * lost to a crash is made good by the merchant's retry. `refund` gives back the last paid period, or its unused part.
 */
export async function cancelSubscription(
  subscriptionId: string,
  deps: ChangeDeps,
  refund: CancelRefund = "none",
): Promise<ChangeResult> {
  const subscription = await load(subscriptionId, deps);
  if (!subscription) return { kind: "not_found" };
  const result = await cancelNow(subscription, deps);
  // The refund follows the cancel, priced on the subscription as the cancel wrote it (its period and schedule); its
  // outcome is on the charge and announced (refund.succeeded / refund.failed).
  if (result.kind === "changed") {
    await refundUnusedPeriod(result.subscription, refund, deps);
    await refundSalesAfterCancel(result.subscription, deps);
  }
  return result;
}

async function cancelNow(subscription: Subscription, deps: ChangeDeps): Promise<ChangeResult> {
  if (subscription.status === "canceled") {
    await retireTokenLater(subscription, deps);
    return { kind: "changed", subscription };
  }
  if (subscription.billing_mode === "recurring" && subscription.recurring_id !== undefined) {
    const outcome = await deps.gateway.deleteRecurring(subscription.recurring_id);
    if (outcome.kind !== "success") return { kind: "refused", failure: outcome };
  }
  const result = resultOf(
    await applyInput(subscription, { kind: "cancel", reason: "canceled_by_merchant" }, deps),
  );
  if (result.kind === "changed") await retireTokenLater(subscription, deps);
  return result;
}
