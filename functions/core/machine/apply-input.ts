import type { Subscription } from "../base/model";
import type {
  SubscriptionExpectation,
  SubscriptionStore,
  SubscriptionUpdate,
} from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { SubscriptionInput } from "./subscription-input";
import { nextStep } from "./subscription-machine";

export type Applied =
  | { readonly kind: "applied"; readonly subscription: Subscription; readonly update: SubscriptionUpdate }
  | { readonly kind: "unchanged"; readonly subscription: Subscription }
  /** The subscription changed since it was read: the conditional write did not apply. */
  | { readonly kind: "stale" }
  | { readonly kind: "refused"; readonly reason: string };

type ApplyDeps = {
  readonly repository: SubscriptionStore;
  readonly clock: Clock;
};

/** Whether `subscription` still holds what a transition expects of it, its revision aside. */
export function meetsExpectation(subscription: Subscription, expect: SubscriptionExpectation): boolean {
  const { revision: _revision, ...fields } = expect;
  return Object.entries(fields).every(([path, value]) => {
    // A dotted path names a field of a nested record, as the repository's conditions do.
    const held = path
      .split(".")
      .reduce<unknown>(
        (record, field) => (record as Record<string, unknown> | undefined)?.[field],
        subscription,
      );
    return value === undefined || (value === null ? held === undefined : held === value);
  });
}

/** How often a change is taken again on the subscription read anew after losing its write to another writer. */
const CHANGE_TRIES = 20;

/**
 * Takes the step of `inputFor(subscription)` and writes it with its events, conditionally; a lost write reads the
 * subscription again and, while `tryAgain` says so, takes the step anew on it (until the tries, which no real load
 * exhausts, run out).
 */
async function applyStep(
  subscription: Subscription,
  inputFor: (current: Subscription) => SubscriptionInput,
  deps: ApplyDeps,
  tryAgain: (fresh: Subscription, lost: SubscriptionUpdate) => boolean,
): Promise<Applied> {
  let current = subscription;
  for (let tries = 1; ; tries += 1) {
    const step = nextStep(current, inputFor(current), deps.clock.now());
    if (step.kind === "refused") return step;
    if (step.kind === "unchanged") return { kind: "unchanged", subscription: current };
    if (await deps.repository.updateSubscription(current.subscription_id, step.update))
      return { kind: "applied", subscription: step.after, update: step.update };
    const fresh =
      tries < CHANGE_TRIES ? await deps.repository.getSubscription(current.subscription_id) : undefined;
    if (fresh === undefined || !tryAgain(fresh, step.update)) return { kind: "stale" };
    current = fresh;
  }
}

/**
 * Takes the next step of `subscription` (as read) on `input` and writes it, with its events, conditionally. Every
 * write expects the revision read, so a write that lost only to a change it does not depend on (metadata written
 * during a charge) is taken again on the subscription as it now is: its events then tell what it really became.
 * A write whose own expectation no longer holds is stale.
 */
export function applyInput(subscription: Subscription, input: SubscriptionInput, deps: ApplyDeps) {
  return applyStep(
    subscription,
    () => input,
    deps,
    (fresh, lost) => meetsExpectation(fresh, lost.expect),
  );
}

/**
 * Applies a change money already paid for (a new card's payment, a prorated upgrade): a write lost to another writer is
 * not an answer — the subscription is read again and the input made for it applied again, until it applies or the
 * machine refuses it.
 */
export function applyPaidInput(
  subscription: Subscription,
  inputFor: (current: Subscription) => SubscriptionInput,
  deps: ApplyDeps,
) {
  return applyStep(subscription, inputFor, deps, () => true);
}
