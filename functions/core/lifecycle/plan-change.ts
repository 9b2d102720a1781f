import { orBeingSettled } from "../base/after-the-gateway";
import type { Plan, Subscription } from "../base/model";
import { fromCents, type InvalidInput, invalidAmount } from "../base/money";
import { chargedCents, quantityOf, recurringAmount, totalProblem } from "../base/plan-price";
import { unusedPartCents } from "../base/proration";
import { chargeLine, claimNextLine } from "../charging/ad-hoc-charge";
import type { ChargeDeps } from "../charging/charge-engine";
import { refusalOfLine, voidAttempt } from "../charging/ledger-lines";
import { applyInput } from "../machine/apply-input";
import { planText, pricedOn, samePlan, stillPricedOn } from "../machine/subscription-input";
import { type CreditDeps, priceCredit, sendPendingCredit } from "../refunds/plan-credit";
import { pendingProrationLine, settleProration } from "../refunds/proration-settlement";
import { type ChangeDeps, type ChangeResult, load, resultOf } from "./subscription-changes";

// A plan change (README, Subscription lifecycle: adjust_plan): a new amount, new seats, or both. Now: the new total from
// the next charge on, and with proration "charge_now" an upgrade pays the difference for the rest of the paid period at
// once, as one proration line per change (the plan changes once it is paid, whoever settles the line); with
// "refund_now" a decrease gives the unused part of the difference back, as one refund of the paid period's charge per
// change (plan-credit.ts). At the next renewal: scheduled; a new interval always waits for it, so a paid period never
// changes length, and so does a decrease of seats unless asked for now.

export interface PlanChangeRequest {
  readonly subscription_id: string;
  /** Omitted: the current unit amount. */
  readonly amount?: string;
  /** Seats; omitted: the current seats. */
  readonly quantity?: number;
  /** Omitted: the current interval. */
  readonly interval_months?: number;
  readonly proration: "none" | "charge_now" | "refund_now";
  /** Omitted: now, or the next renewal when the interval changes or token billing's seats decrease (not refund_now). */
  readonly at?: "now" | "next_renewal";
  /** The digest of the caller's idempotency key, kept on the proration line. */
  readonly request_key?: string;
}

export type PlanChangeResult =
  | ChangeResult
  /** The proration charge's outcome is unknown: the plan changes when the attempt sweep finds it paid. */
  | { readonly kind: "pending"; readonly subscription: Subscription }
  | InvalidInput;

/** How often a prorated change is priced again on a subscription another change moved meanwhile. */
const PRICING_TRIES = 5;

/** What a plan change uses: a credit's refund_id follows from the subscription's revision and the paid charge. */
export type PlanChangeDeps = ChangeDeps & ChargeDeps & Pick<CreditDeps, "ids">;

export async function changePlan(
  request: PlanChangeRequest,
  deps: PlanChangeDeps,
): Promise<PlanChangeResult> {
  for (let tries = 1; ; tries += 1) {
    const subscription = await load(request.subscription_id, deps);
    if (!subscription) return { kind: "not_found" };
    const result = await changePlanOf(subscription, request, deps);
    if (result.kind !== "priced_on_a_replaced_plan") return result;
    if (tries === PRICING_TRIES)
      return {
        kind: "conflict",
        reason: `the plan keeps changing meanwhile: it is ${planText(result.plan)}`,
      };
  }
}

/** Priced on a plan another change replaced before the proration started: nothing was charged; price it again. */
type Repriced = { readonly kind: "priced_on_a_replaced_plan"; readonly plan: Plan };

async function changePlanOf(
  subscription: Subscription,
  request: PlanChangeRequest,
  deps: PlanChangeDeps,
): Promise<PlanChangeResult | Repriced> {
  if (subscription.status === "canceled") return { kind: "conflict", reason: "subscription is canceled" };
  const plan = requestedPlan(subscription.plan, request);
  if ("kind" in plan) return plan;
  const at = request.at ?? defaultTiming(subscription, plan, request.proration);
  if (request.proration !== "none" && at !== "now")
    return { kind: "conflict", reason: `${request.proration} prorates a change made now` };
  if (request.proration === "refund_now") return changeCreditedNow(subscription, plan, deps);
  const prorated = request.proration === "charge_now";
  if (prorated) {
    const paid = await changePaidNow(subscription, plan, request.request_key, deps);
    if (paid !== undefined) return paid;
  }
  if (subscription.billing_mode === "recurring" && at === "now") {
    // The gateway's plan is changed first; ours only once the gateway agreed.
    if (subscription.recurring_id === undefined)
      return { kind: "conflict", reason: "no gateway plan registered yet" };
    const outcome = await deps.gateway.adjustRecurring(
      subscription.recurring_id,
      recurringAmount(plan, subscription.tax_rate),
    );
    if (outcome.kind !== "success") return { kind: "refused", failure: outcome };
  }
  // Prorated, nothing was owed on the plan as read: on another plan it may be (a downgrade from it, an upgrade now).
  const pricedOnRead = prorated ? pricedOn(subscription) : undefined;
  const applied = await applyInput(
    subscription,
    { kind: "adjust_plan", plan, at, priced_on: pricedOnRead },
    deps,
  );
  if (pricedOnRead !== undefined && (applied.kind === "refused" || applied.kind === "stale")) {
    const current = await load(subscription.subscription_id, deps);
    if (current !== undefined && !stillPricedOn(current, pricedOnRead))
      return { kind: "priced_on_a_replaced_plan", plan: current.plan };
  }
  return resultOf(applied);
}

/**
 * An upgrade paid for at once (README, Subscription lifecycle: adjust with charge_now): the difference for what is left
 * of the paid period is one proration line, claimed first and named by the subscription's pending change before it is
 * charged, so a retried, repeated or concurrent request for the same change finds that line and charges nothing more,
 * and no other plan change is made until it is settled. The start holds only while the subscription still has the plan
 * and period the difference was priced on: a change priced on a plan another change has since replaced charges
 * nothing and is priced again on the fresh subscription (where the plan asked for may already hold: nothing owed).
 * Once paid, the change applies (settleProration), whoever settles the line. Undefined when nothing is owed (a
 * downgrade, no paid period running): the plan changes as usual.
 */
async function changePaidNow(
  subscription: Subscription,
  plan: Plan,
  requestKey: string | undefined,
  deps: ChangeDeps & ChargeDeps,
): Promise<PlanChangeResult | Repriced | undefined> {
  const pending = subscription.pending_plan;
  if (pending !== undefined && subscription.pending_plan_order !== undefined) {
    if (!samePlan(pending, plan))
      return { kind: "conflict", reason: "another plan change is being paid for: repeat once it is settled" };
    return continuePaidChange(subscription, deps);
  }
  const cents = prorationCents(subscription, plan, deps.clock.now());
  if (cents <= 0) return undefined;
  if (subscription.billing_mode !== "token" || subscription.token_id === undefined)
    return {
      kind: "conflict",
      reason: "charge_now needs a stored card: a gateway-managed plan has none here",
    };
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const line = await claimNextLine(
    subscription,
    ledger,
    { amount: fromCents(cents, plan.currency), request_key: requestKey, purpose: "proration" },
    deps,
  );
  if (!line) return { kind: "conflict", reason: "this subscription has no ad hoc charge left" };
  const started = await applyInput(
    subscription,
    { kind: "plan_change_started", plan, order_id: line.order_id, priced_on: pricedOn(subscription) },
    deps,
  );
  if (started.kind !== "applied") {
    // Another writer came first: nothing was sent on this line. Priced again on the subscription as it now is.
    await voidAttempt(line, "not sent: the subscription changed before the proration", deps);
    return { kind: "priced_on_a_replaced_plan", plan: subscription.plan };
  }
  await chargeLine(started.subscription, subscription.token_id, line, deps);
  return orBeingSettled(
    () => continuePaidChange(started.subscription, deps),
    () => ({ kind: "pending", subscription: started.subscription }),
  );
}

/**
 * A decrease whose unused part goes back now (README, Subscription lifecycle: adjust with refund_now): the credit is
 * priced on the subscription as read and written with the new plan in one conditional write, then sent as a refund of
 * the paid charge. A credit still pending from an earlier change is sent first, and a write that lost to another
 * writer is priced again on the fresh subscription (where the plan asked for may already hold: nothing goes back).
 * Nothing to give back (an increase, no paid period): the plan changes as usual.
 */
async function changeCreditedNow(
  subscription: Subscription,
  plan: Plan,
  deps: PlanChangeDeps,
): Promise<PlanChangeResult | Repriced> {
  if (subscription.billing_mode !== "token")
    return {
      kind: "conflict",
      reason: "refund_now credits a stored-card subscription: refund a gateway-managed plan's charge instead",
    };
  if (subscription.pending_plan_order !== undefined)
    return { kind: "conflict", reason: "another plan change is being paid for: repeat once it is settled" };
  if (subscription.pending_credit !== undefined) {
    await sendPendingCredit(subscription, deps);
    return { kind: "priced_on_a_replaced_plan", plan: subscription.plan };
  }
  const credit = await priceCredit(subscription, plan, deps);
  const applied = await applyInput(
    subscription,
    { kind: "adjust_plan", plan, at: "now", priced_on: pricedOn(subscription), credit },
    deps,
  );
  if (applied.kind === "stale" || (applied.kind === "refused" && credit !== undefined))
    return { kind: "priced_on_a_replaced_plan", plan: subscription.plan };
  if (applied.kind !== "applied" || credit === undefined) return resultOf(applied);
  await sendPendingCredit(applied.subscription, deps);
  return {
    kind: "changed",
    subscription: (await load(subscription.subscription_id, deps)) ?? applied.subscription,
  };
}

/** What the pending change's proration line has come to, and what that makes of the change. */
async function continuePaidChange(
  subscription: Subscription,
  deps: ChangeDeps & ChargeDeps,
): Promise<PlanChangeResult> {
  const line = await pendingProrationLine(subscription, deps.repository);
  if (!line) return { kind: "conflict", reason: "the pending plan change has no proration line" };
  const current = (await load(subscription.subscription_id, deps)) ?? subscription;
  const settled = await settleProration(current, line, deps);
  switch (settled.kind) {
    case "applied":
      return { kind: "changed", subscription: settled.subscription };
    case "pending":
      return { kind: "pending", subscription: settled.subscription };
    case "refunded":
      return { kind: "conflict", reason: settled.reason };
    case "charged_nothing":
      return {
        kind: "refused",
        failure: refusalOfLine(line) ?? { kind: "unavailable", reason: line.status },
      };
  }
}

/**
 * The plan asked for: the current one with what the request changes. A new amount or interval is no longer the catalog's
 * price (its product stays what is sold); new seats alone keep the price.
 */
function requestedPlan(current: Plan, request: PlanChangeRequest): Plan | InvalidInput {
  const amount = request.amount ?? current.amount;
  const invalid = invalidAmount(amount, current.currency);
  if (invalid) return invalid;
  const interval = request.interval_months ?? current.interval_months;
  const { price_id: _price, ...unpriced } = current;
  const repriced = amount !== current.amount || interval !== current.interval_months;
  const plan: Plan = {
    ...(repriced ? unpriced : current),
    amount,
    interval_months: interval,
    ...(request.quantity === undefined ? {} : { quantity: request.quantity }),
  };
  const tooMuch = totalProblem(plan);
  return tooMuch === undefined ? plan : { kind: "invalid_input", field: "quantity", message: tooMuch };
}

/**
 * Now, unless the change must wait for the paid period's end: a new interval, or fewer seats on token billing unless
 * their unused part is refunded now.
 */
function defaultTiming(
  subscription: Subscription,
  plan: Plan,
  proration: PlanChangeRequest["proration"],
): "now" | "next_renewal" {
  if (plan.interval_months !== subscription.plan.interval_months) return "next_renewal";
  const fewerSeats = quantityOf(plan) < quantityOf(subscription.plan);
  return fewerSeats && subscription.billing_mode === "token" && proration !== "refund_now"
    ? "next_renewal"
    : "now";
}

/**
 * The new charge's excess over the old for the rest of the paid period (same interval; both with the discount running
 * now); 0 for a downgrade.
 */
function prorationCents(subscription: Subscription, plan: Plan, now: Date): number {
  if (subscription.status !== "active" || subscription.period === 0) return 0;
  const cents = chargedCents(plan, subscription) - chargedCents(subscription.plan, subscription);
  return unusedPartCents(subscription, subscription.period - 1, { cents, currency: plan.currency }, now);
}
