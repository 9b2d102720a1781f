import { isAdHocPeriod } from "../base/charge-kind";
import { type ChargePolicy, retryDelaySeconds } from "../base/charge-policy";
import { expiredWindowEvent } from "../base/events";
import { type ChargeAttempt, OPEN_ATTEMPT_STATUSES, type Subscription } from "../base/model";
import type { Failure } from "../base/outcome";
import { isFreeCharge, lineItemOf, periodCharge } from "../base/plan-price";
import { done, retry, type WorkResult } from "../base/work-result";
import { type Closing, closeLine } from "../invoicing/line-close";
import { applyInput } from "../machine/apply-input";
import type { BillingRepository } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { CouponStore } from "../ports/coupon-store";
import type { ChargeGateway } from "../ports/payment-gateway";
import type { ChargeMessage } from "../ports/queues";
import { refundSaleAfterCancel, refundSalesAfterCancel } from "../refunds/cancel-refund";
import { pendingProrationLine, settleProration } from "../refunds/proration-settlement";
import { refundVerification } from "../refunds/refunds";
import { retireToken } from "../refunds/token-retirement";
import { finishPaidSignup } from "../signup/signup-steps";
import {
  leaseUntil,
  pendingAttempt,
  recordUnknownOutcome,
  refusalClosing,
  voidAttempt,
} from "./ledger-lines";

export interface ChargeDeps {
  readonly repository: BillingRepository;
  readonly gateway: ChargeGateway;
  readonly clock: Clock;
  readonly policy: ChargePolicy;
  /** Where a sign-up the worker ends before it started gives its coupon's redemption back. */
  readonly coupons: Pick<CouponStore, "release">;
}

/**
 * The charge protocol for one queued message (README, Exactly once: how a charge is made): claim the period's attempt
 * with a conditional write, REBILL the stored token with the attempt's deterministic order_id, then close the attempt
 * and advance the subscription with conditional writes. Safe to run twice on the same message and concurrently with
 * itself.
 */
export async function processChargeMessage(
  message: ChargeMessage,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const read = await deps.repository.getSubscription(message.subscription_id);
  if (!read) return done("unknown subscription");
  const subscription = await withPaidChangeSettled(read, deps);
  // A canceled subscription's message (its cancel, or a redelivery) finishes the cancel: a sale for a period it never
  // reached goes back, and its token is retired.
  if (subscription.status === "canceled") {
    await refundSalesAfterCancel(subscription, deps);
    return retireTokenOf(subscription, receiveCount, deps);
  }
  if (subscription.billing_mode !== "token" || subscription.status === "pending") {
    return done(`not billed here (${subscription.billing_mode}, ${subscription.status})`);
  }
  if (subscription.period !== message.period) return done("period already settled");
  const dueAt = subscription.next_charge_at;
  if (dueAt === undefined || Date.parse(dueAt) > deps.clock.now().getTime()) return done("not due");
  if (subscription.status === "paused") return resumeWhenDue(subscription, receiveCount, deps);
  if (subscription.cancel_at !== undefined) return endPaidPeriod(subscription, receiveCount, deps);
  return chargeCurrentAttempt(subscription, receiveCount, deps);
}

/**
 * A cancel scheduled for the end of the paid period: nothing new is charged, the subscription ends and its token goes.
 * A charge claimed before the cancel was scheduled is finished first (its close decides: paid, the new period runs
 * out; refused, the subscription ends), so a period the customer paid is never cut short.
 */
async function endPaidPeriod(
  subscription: Subscription,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const inFlight = await deps.repository.getAttempt({
    subscription_id: subscription.subscription_id,
    period: subscription.period,
    attempt: subscription.attempt,
  });
  if (inFlight !== undefined && inFlight.status !== "voided")
    return continueExisting(subscription, inFlight, receiveCount, deps);
  const ended = await applyInput(subscription, { kind: "period_ended" }, deps);
  if (ended.kind !== "applied") return done(`scheduled cancel not applied (${ended.kind})`);
  return retireTokenOf(ended.subscription, receiveCount, deps);
}

/** A pause until a date that has come: resumed, and charged at once when its paid period ended meanwhile. */
async function resumeWhenDue(
  subscription: Subscription,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const resumed = await applyInput(subscription, { kind: "resume" }, deps);
  if (resumed.kind !== "applied") return done(`resume not applied (${resumed.kind})`);
  const dueAt = resumed.subscription.next_charge_at;
  if (dueAt === undefined || Date.parse(dueAt) > deps.clock.now().getTime())
    return done(`resumed; next charge at ${dueAt ?? "none"}`);
  return chargeCurrentAttempt(resumed.subscription, receiveCount, deps);
}

function secondsUntil(instant: string | undefined, deps: ChargeDeps): number {
  return instant === undefined ? 0 : (Date.parse(instant) - deps.clock.now().getTime()) / 1000;
}

async function chargeCurrentAttempt(
  subscription: Subscription,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const key = {
    subscription_id: subscription.subscription_id,
    period: subscription.period,
    attempt: subscription.attempt,
  };
  const attempt = pendingAttempt(key, periodCharge(subscription), deps);
  const claim = await deps.repository.claimAttempt(attempt);
  if (claim.claimed) return callGateway(subscription, attempt, receiveCount, deps);
  return continueExisting(subscription, claim.existing, receiveCount, deps);
}

/** Someone claimed this attempt before: pick it up where it stands. */
async function continueExisting(
  subscription: Subscription,
  existing: ChargeAttempt,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  switch (existing.status) {
    case "pending":
    case "unknown":
      // Still inside its lease: the owner finishes it, or the attempt sweep resolves it once the lease has passed.
      if (secondsUntil(existing.lease_until, deps) > 0)
        return done(`attempt ${existing.order_id} is ${existing.status}`);
      return resolveAndContinue(subscription, existing, receiveCount, deps);
    case "retry": {
      const lease = leaseUntil(deps);
      const taken = await deps.repository.updateAttempt(existing, {
        expect: { status: "retry", lease_until: existing.lease_until },
        set: { status: "pending", lease_until: lease, updated_at: deps.clock.now().toISOString() },
      });
      if (!taken)
        return retry(retryDelaySeconds(deps.policy, receiveCount), "another worker took the attempt");
      return callGateway(
        subscription,
        { ...existing, status: "pending", lease_until: lease },
        receiveCount,
        deps,
      );
    }
    case "voided":
      return startNextAttempt(subscription, existing, receiveCount, deps);
    default:
      // Closed, but the subscription missed its transition (a crash between the two writes): apply it now.
      return applyClosedAttempt(subscription, existing, deps);
  }
}

async function callGateway(
  subscription: Subscription,
  attempt: ChargeAttempt,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  // A whole discount: nothing to ask of the gateway (README, Coupons); the zero line is paid as it stands.
  if (isFreeCharge(attempt)) return closeAttempt(subscription, attempt, { status: "succeeded" }, deps);
  if (subscription.token_id === undefined) {
    return closeAttempt(
      subscription,
      attempt,
      { status: "failed", rescode: "NO_TOKEN", resmsg: "no stored token" },
      deps,
    );
  }
  const outcome = await deps.gateway.rebill({
    order_id: attempt.order_id,
    token_id: subscription.token_id,
    amount: attempt.amount,
    currency: attempt.currency,
    customer: subscription.customer,
    item: lineItemOf(subscription, attempt),
  });
  if (outcome.kind === "success") {
    return closeAttempt(subscription, attempt, { status: "succeeded", ...outcome.value }, deps);
  }
  return handleFailure(subscription, attempt, outcome, receiveCount, deps);
}

async function handleFailure(
  subscription: Subscription,
  attempt: ChargeAttempt,
  failure: Failure,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  switch (failure.kind) {
    case "declined":
    case "invalid":
      return closeAttempt(subscription, attempt, refusalClosing(failure), deps);
    case "unavailable": {
      // Refused before the gateway accepted it: the same order_id is sent again when the queue redelivers. The lease
      // outlasts that delay, so the attempt sweep only steps in if the message itself is lost.
      const delaySeconds = retryDelaySeconds(deps.policy, receiveCount);
      const lease = new Date(Date.parse(leaseUntil(deps)) + delaySeconds * 1000).toISOString();
      await deps.repository.updateAttempt(attempt, {
        expect: { status: attempt.status, lease_until: attempt.lease_until },
        set: { status: "retry", lease_until: lease, updated_at: deps.clock.now().toISOString() },
      });
      return retry(delaySeconds, `gateway unavailable: ${failure.reason}`);
    }
    case "unknown":
      await recordUnknownOutcome(attempt, failure.reason, deps);
      return done(
        `outcome of ${attempt.order_id} unknown (${failure.reason}); resolved after the in-flight window`,
      );
  }
}

/**
 * Writes the attempt's final state (ledger first), announcing the charge in the same write, then moves the
 * subscription on (an ad hoc line is outside the schedule and moves nothing). Only the writer that closed the attempt
 * goes on, so each close is applied once.
 */
export async function closeAttempt(
  subscription: Subscription,
  attempt: ChargeAttempt,
  closing: Closing,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const closed = await closeLine(subscription, attempt, closing, deps);
  if (!closed) return done(`attempt ${attempt.order_id} changed under us; left to its new owner`);
  return applyClosedAttempt(subscription, closed, deps);
}

async function applyClosedAttempt(
  subscription: Subscription,
  attempt: ChargeAttempt,
  deps: ChargeDeps,
): Promise<WorkResult> {
  // A card verification the sweep found paid is refunded, whichever request made it (a trial, a new card).
  if (attempt.status === "succeeded" && attempt.verification) await refundVerification(attempt, deps);
  // An ad hoc charge leaves the subscription's period, dunning and status as they are; a proration settles its change.
  if (isAdHocPeriod(attempt.period)) {
    if (attempt.purpose === "proration") await settleProrationOf(attempt, deps);
    return done(`ad hoc ${attempt.status} ${attempt.order_id}`);
  }
  const note =
    attempt.status === "succeeded"
      ? `charged ${attempt.order_id}`
      : `${attempt.status} ${attempt.order_id} (${attempt.rescode ?? ""})`;
  // A sign-up's payment whose request stopped before the subscription had its token: finished with what the line
  // names (read again: the listing it came from may not carry it), or ended and refunded (signup-steps.ts).
  if (attempt.period === 0 && attempt.status === "succeeded" && subscription.status === "pending") {
    const line = (await deps.repository.getAttempt(attempt)) ?? attempt;
    const finished = await finishPaidSignup(subscription, line, deps);
    if (finished !== "left") return done(`${note}; sign-up ${finished}`);
  }
  const applied = await applyInput(
    subscription,
    { kind: "charge_closed", attempt, policy: deps.policy },
    deps,
  );
  if (applied.kind !== "applied") {
    // Canceled while this period's charge was in flight: the period never comes, so its sale goes back.
    const refunded = await refundSaleAfterCancel(attempt, deps);
    return done(`${note}; subscription already moved on${refunded ? `; refund ${refunded.kind}` : ""}`);
  }
  if (applied.subscription.status !== "canceled") return done(note);
  // Until its token is deleted the message stays on the queue; its redelivery finds the cancel and retries.
  const retired = await retireTokenOf(subscription, 1, deps);
  return { ...retired, note: `${note}; ${retired.note}` };
}

/**
 * A plan change whose proration line closed while the subscription missed the settlement (a crash between the two
 * writes) is settled before anything else is done with the subscription; the subscription as it stands then.
 */
async function withPaidChangeSettled(subscription: Subscription, deps: ChargeDeps): Promise<Subscription> {
  const line = await pendingProrationLine(subscription, deps.repository);
  if (line === undefined || OPEN_ATTEMPT_STATUSES.includes(line.status)) return subscription;
  await settleProration(subscription, line, deps);
  return (await deps.repository.getSubscription(subscription.subscription_id)) ?? subscription;
}

/** The plan change a proration line pays for, settled with the subscription as it stands. */
export async function settleProrationOf(line: ChargeAttempt, deps: ChargeDeps): Promise<void> {
  const subscription = await deps.repository.getSubscription(line.subscription_id);
  if (subscription !== undefined) await settleProration(subscription, line, deps);
}

/** The work result of retiring a canceled subscription's token: a deletion not yet confirmed comes back later. */
async function retireTokenOf(
  subscription: Subscription,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const retirement = await retireToken(subscription, deps);
  return retirement.kind === "retry"
    ? retry(retryDelaySeconds(deps.policy, receiveCount), retirement.note)
    : done(`canceled: ${retirement.note}`);
}

/** Asks the gateway what became of an attempt whose outcome we never learned. */
async function resolveAndContinue(
  subscription: Subscription,
  attempt: ChargeAttempt,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const resolution = await resolveAttempt(subscription, attempt, receiveCount, deps);
  return resolution.kind === "voided"
    ? startNextAttempt(subscription, attempt, receiveCount, deps)
    : resolution.result;
}

export type Resolution =
  | { readonly kind: "voided" }
  | { readonly kind: "settled"; readonly result: WorkResult };

/**
 * Retrieve by order_id decides an open attempt: a transaction → it succeeded (commit); none → it never happened
 * (voided; the next attempt gets a new order_id). Anything else → try again later. A zero line is never asked about.
 * A new card's window is leased until it expires, so one found unpaid here has expired: its void announces
 * checkout.expired.
 */
export async function resolveAttempt(
  subscription: Subscription,
  attempt: ChargeAttempt,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<Resolution> {
  // A zero line was never sent (a whole discount): there is no order to ask about, and retrieve takes only amounts
  // above 0. It is paid as it stands, as its first close would have done.
  if (isFreeCharge(attempt))
    return {
      kind: "settled",
      result: await closeAttempt(subscription, attempt, { status: "succeeded" }, deps),
    };
  const found = await deps.gateway.findOrder(attempt);
  if (found.kind !== "success") {
    const reason = found.kind === "declined" || found.kind === "invalid" ? found.message : found.reason;
    return {
      kind: "settled",
      result: retry(retryDelaySeconds(deps.policy, receiveCount), `retrieve failed: ${reason}`),
    };
  }
  switch (found.value.state) {
    case "none": {
      const expired = attempt.purpose === "payment_method" ? [expiredWindowEvent(attempt, subscription)] : [];
      const voided = await voidAttempt(attempt, "no transaction at the gateway", deps, expired);
      return voided
        ? { kind: "voided" }
        : { kind: "settled", result: done(`attempt ${attempt.order_id} changed while resolving`) };
    }
    case "awaiting_deposit":
      return {
        kind: "settled",
        result: retry(retryDelaySeconds(deps.policy, receiveCount), "order registered, not settled"),
      };
    default:
      return {
        kind: "settled",
        result: await closeAttempt(
          subscription,
          attempt,
          { status: "succeeded", transaction_id: found.value.transaction_id },
          deps,
        ),
      };
  }
}

/** After a voided attempt: the subscription moves to the next attempt number, which is charged at once. */
async function startNextAttempt(
  subscription: Subscription,
  voided: ChargeAttempt,
  receiveCount: number,
  deps: ChargeDeps,
): Promise<WorkResult> {
  const moved = await applyInput(subscription, { kind: "charge_voided", attempt: voided }, deps);
  if (moved.kind !== "applied") return done(`attempt ${voided.order_id} voided`);
  // A cancel scheduled meanwhile: the voided charge was the last one that could be made.
  if (moved.subscription.cancel_at !== undefined)
    return endPaidPeriod(moved.subscription, receiveCount, deps);
  return chargeCurrentAttempt(moved.subscription, receiveCount, deps);
}
