import { chargeAdHoc } from "./ad-hoc-charge";
import { type ChargeDeps, refusalOfLine } from "./charge-engine";
import type { Plan, Subscription } from "./model";
import { fromCents, type InvalidInput, invalidAmount, toCents } from "./money";
import { unusedPartCents } from "./proration";
import { type ChangeDeps, type ChangeResult, load, resultOf } from "./subscription-changes";
import { applyInput } from "./subscription-machine";

// A plan change (README, Subscription lifecycle: adjust_plan). Now: the new amount from the next charge on, and with
// proration "charge_now" an upgrade pays the difference for the rest of the paid period at once, as an ad hoc charge
// made once per request (its ledger line keeps the request's key; the plan changes only once it is paid). At the
// next renewal: scheduled; a new interval always waits for it, so a paid period never changes length.

export interface PlanChangeRequest {
  readonly subscription_id: string;
  readonly amount: string;
  /** Omitted: the current interval. */
  readonly interval_months?: number;
  readonly proration: "none" | "charge_now";
  /** Omitted: now, or the next renewal when the interval changes. */
  readonly at?: "now" | "next_renewal";
  /** The digest of the caller's idempotency key: the proration charge is made once per key. */
  readonly request_key?: string;
}

export type PlanChangeResult =
  | ChangeResult
  /** The proration charge's outcome is unknown: the plan changes when the request is repeated once it is settled. */
  | { readonly kind: "pending"; readonly subscription: Subscription }
  | InvalidInput;

export async function changePlan(
  request: PlanChangeRequest,
  deps: ChangeDeps & ChargeDeps,
): Promise<PlanChangeResult> {
  const subscription = await load(request.subscription_id, deps);
  if (!subscription) return { kind: "not_found" };
  if (subscription.status === "canceled") return { kind: "conflict", reason: "subscription is canceled" };
  const invalid = invalidAmount(request.amount, subscription.plan.currency);
  if (invalid) return invalid;
  const plan: Plan = {
    amount: request.amount,
    currency: subscription.plan.currency,
    interval_months: request.interval_months ?? subscription.plan.interval_months,
  };
  const at =
    request.at ?? (plan.interval_months === subscription.plan.interval_months ? "now" : "next_renewal");
  if (request.proration === "charge_now") {
    if (at !== "now") return { kind: "conflict", reason: "charge_now prorates a change made now" };
    const paid = await payProration(subscription, plan, request.request_key, deps);
    if (paid !== undefined) return paid;
  }
  if (subscription.billing_mode === "recurring" && at === "now") {
    // The gateway's plan is changed first; ours only once the gateway agreed.
    if (subscription.recurring_id === undefined)
      return { kind: "conflict", reason: "no gateway plan registered yet" };
    const outcome = await deps.gateway.adjustRecurring(subscription.recurring_id, plan.amount);
    if (outcome.kind !== "success") return { kind: "refused", failure: outcome };
  }
  return resultOf(await applyInput(subscription, { kind: "adjust_plan", plan, at }, deps));
}

/**
 * Charges the upgrade's difference for what is left of the paid period; undefined when it is paid (or nothing is
 * owed: a downgrade, no paid period running), otherwise what to answer instead of changing the plan.
 */
async function payProration(
  subscription: Subscription,
  plan: Plan,
  requestKey: string | undefined,
  deps: ChangeDeps & ChargeDeps,
): Promise<PlanChangeResult | undefined> {
  const cents = prorationCents(subscription, plan, deps.clock.now());
  if (cents <= 0) return undefined;
  if (subscription.billing_mode !== "token")
    return {
      kind: "conflict",
      reason: "charge_now needs a stored card: a gateway-managed plan has none here",
    };
  const result = await chargeAdHoc(
    { subscription_id: subscription.subscription_id, amount: fromCents(cents), request_key: requestKey },
    deps,
  );
  if (result.kind === "not_found") return result;
  if (result.kind === "not_chargeable") return { kind: "conflict", reason: result.reason };
  if (result.kind === "invalid_input") return result;
  const line = result.charge;
  if (line.status === "succeeded") return undefined;
  const refusal = refusalOfLine(line);
  return refusal === undefined ? { kind: "pending", subscription } : { kind: "refused", failure: refusal };
}

/** The new amount's excess over the old for the rest of the paid period (same interval); 0 for a downgrade. */
function prorationCents(subscription: Subscription, plan: Plan, now: Date): number {
  if (subscription.status !== "active" || subscription.period === 0) return 0;
  const cents = toCents(plan.amount) - toCents(subscription.plan.amount);
  return unusedPartCents(subscription, subscription.period - 1, { cents, currency: plan.currency }, now);
}
