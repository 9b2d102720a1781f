import { periodStartOf } from "../base/billing-period";
import { type EventFacts, subjectOf } from "../base/events";
import { METADATA_MAX_KEYS, type Subscription } from "../base/model";
import type { RemovableSubscriptionField } from "../ports/billing-repository";
import { paidThrough } from "./charge-steps";
import { discountEdit } from "./discount-steps";
import type { Step, SubscriptionInput } from "./subscription-input";
import { type Changed, chargeExpectation, isCurrent, refused, transition } from "./transition";

/**
 * The new card's token (or, for a gateway-managed plan, the plan registered with it) replaces the stored one, guarded
 * by the one as read, so of two concurrent updates one wins and the other's is retired by its caller. Paid: the overdue period is paid, so the subscription moves to the next one,
 * active, dunning cleared. Not paid: a past_due subscription owed nothing yet (its period had not started) and is
 * active again, charged when that period starts.
 */
export function paymentMethodUpdated(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "payment_method_updated" }>,
  now: Date,
): Step {
  if (subscription.status === "pending") return refused("the first payment is not settled yet");
  const byToken = subscription.billing_mode === "token";
  const replacing = byToken ? input.token_id : input.recurring_id;
  if (replacing === undefined)
    return refused(byToken ? "no token for the new card" : "no plan for the new card");
  const current = byToken ? subscription.token_id : subscription.recurring_id;
  if (current === replacing) return { kind: "unchanged" };
  const method = {
    ...(byToken ? { token_id: replacing } : { recurring_id: replacing }),
    ...(input.card === undefined ? {} : { card: input.card }),
  };
  const change = {
    announce: (after: Subscription): EventFacts[] => [
      {
        type: "payment_method.updated",
        ...subjectOf(after),
        ...(input.card === undefined ? {} : { card: { ...input.card } }),
      },
    ],
    remove: ["dunning", "status_reason"] as RemovableSubscriptionField[],
  };
  const expectMethod = byToken ? { token_id: current ?? null } : { recurring_id: current ?? null };
  const { paid } = input;
  if (paid !== undefined) {
    if (subscription.status !== "past_due") return refused("nothing is overdue");
    if (!isCurrent(subscription, paid) || paid.status !== "succeeded")
      return refused(`attempt ${paid.order_id} is not the current one, paid`);
    const through = paidThrough(subscription, paid);
    return transition(subscription, now, {
      ...change,
      changed: through.changed,
      expect: { ...chargeExpectation(subscription, paid), ...expectMethod },
      set: {
        ...through.set,
        ...method,
        status: "active",
        ...(byToken ? { next_charge_at: through.nextPeriodStart.toISOString() } : {}),
      },
      remove: [...change.remove, ...through.remove],
    });
  }
  if (subscription.status !== "past_due")
    return transition(subscription, now, { announce: change.announce, expect: expectMethod, set: method });
  const start = periodStartOf(subscription, subscription.period);
  if (start.getTime() <= now.getTime()) return refused("the overdue period must be paid with the new card");
  return transition(subscription, now, {
    ...change,
    expect: { ...expectMethod, period: subscription.period },
    set: { ...method, status: "active", ...(byToken ? { next_charge_at: start.toISOString() } : {}) },
  });
}

export function updateCustomer(
  subscription: Subscription,
  input: Extract<SubscriptionInput, { kind: "update_customer" }>,
  now: Date,
): Step {
  const { external_id: current, ...customer } = subscription.customer;
  const externalId = input.external_id === undefined ? current : (input.external_id ?? undefined);
  const nextCustomer = externalId === undefined ? customer : { ...customer, external_id: externalId };
  const merged = Object.fromEntries(
    Object.entries({ ...subscription.metadata, ...input.metadata }).filter(([, value]) => value !== ""),
  );
  if (Object.keys(merged).length > METADATA_MAX_KEYS)
    return refused(`metadata would have more than ${METADATA_MAX_KEYS} keys`);
  const discount = input.discount === undefined ? undefined : discountEdit(subscription, input.discount);
  if (typeof discount === "string") return refused(discount);
  const changed: Changed = [...(discount?.changed ?? [])];
  const undoCancel = input.cancel_at_period_end === false && subscription.cancel_at !== undefined;
  if (undoCancel) changed.push("cancel_at");
  if (externalId !== current) changed.push("external_id");
  if (JSON.stringify(sortedEntries(merged)) !== JSON.stringify(sortedEntries(subscription.metadata ?? {})))
    changed.push("metadata");
  if (changed.length === 0) return { kind: "unchanged" };
  const hasMetadata = Object.keys(merged).length > 0;
  return transition(subscription, now, {
    expect: { updated_at: subscription.updated_at },
    // The customer only when its external_id changes: the table links the new id (and reads the item) only then.
    set: {
      ...(changed.includes("external_id") ? { customer: nextCustomer } : {}),
      ...(hasMetadata ? { metadata: merged } : {}),
      ...discount?.set,
    },
    remove: [
      ...(hasMetadata ? [] : (["metadata"] as const)),
      ...(undoCancel ? (["cancel_at"] as const) : []),
      ...(discount?.remove ?? []),
    ],
    changed,
  });
}

const sortedEntries = (map: Readonly<Record<string, string>>) =>
  Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
