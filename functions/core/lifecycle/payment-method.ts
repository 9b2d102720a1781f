import { orBeingSettled } from "../base/after-the-gateway";
import { periodStartOf } from "../base/billing-period";
import { isAdHocPeriod } from "../base/charge-kind";
import type { ChargeAttempt, MaskedCard, Subscription } from "../base/model";
import { fromCents, minorUnitCents } from "../base/money";
import { type Failure, failureReason } from "../base/outcome";
import { lineItemOf, periodCharge } from "../base/plan-price";
import { claimNextLine, type LineExtras } from "../charging/ad-hoc-charge";
import type { ChargeDeps } from "../charging/charge-engine";
import {
  pendingAttempt,
  recordUnknownOutcome,
  refusalClosing,
  refusalOfLine,
  voidAttempt,
} from "../charging/ledger-lines";
import { type Closing, closeLine } from "../invoicing/line-close";
import { applyInput, applyPaidInput } from "../machine/apply-input";
import type { CardDetails, PaymentGateway } from "../ports/payment-gateway";
import { refundSaleAfterCancel } from "../refunds/cancel-refund";
import { type RefundDeps, refundVerification } from "../refunds/refunds";
import { retireToken } from "../refunds/token-retirement";
import type { ChangeResult } from "./subscription-changes";

// A new card for a subscription (README, Subscription lifecycle: payment_method_updated). The gateway issues a token
// only with a payment, so the card always pays something: a past_due subscription's overdue period (which recovers
// it), or else the smallest amount its currency allows, refunded in full at once. Either payment is a ledger line
// claimed and closed like every charge, and its line keeps the request's key and the token it issued, so a repeated
// request (or one retried after a crash) finishes what its first try began instead of paying again.

export interface PaymentMethodDeps extends ChargeDeps {
  readonly gateway: PaymentGateway;
}

/** What settling a new card's payment line needs (of the charge policy, a verification refund's in-flight window). */
export type SettleDeps = Omit<PaymentMethodDeps, "policy"> & Pick<RefundDeps, "policy">;

export interface PaymentMethodRequest {
  readonly subscription_id: string;
  readonly card: CardDetails;
  /** The digest of the caller's idempotency key: finds the line a first try of the same request made. */
  readonly request_key?: string;
}

export type PaymentMethodResult =
  | ChangeResult
  /** The payment's outcome is unknown: the attempt sweep settles it; the card is not replaced. */
  | { readonly kind: "pending"; readonly subscription: Subscription };

const conflict = (reason: string): PaymentMethodResult => ({ kind: "conflict", reason });

export async function updatePaymentMethod(
  request: PaymentMethodRequest,
  deps: PaymentMethodDeps,
): Promise<PaymentMethodResult> {
  const subscription = await deps.repository.getSubscription(request.subscription_id);
  if (!subscription) return { kind: "not_found" };
  const unfit = unfitForNewCard(subscription);
  if (unfit !== undefined) return conflict(unfit);
  if (subscription.billing_mode !== "token")
    return conflict("a gateway-managed plan's card is replaced in a payment window: send {window}");

  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const earlier = ledger.findLast(
    (line) =>
      request.request_key !== undefined &&
      line.request_key === request.request_key &&
      line.status !== "voided",
  );
  if (earlier) return settle(subscription, earlier, deps);

  const { line, owed } = await claimPaymentLine(
    subscription,
    ledger,
    { request_key: request.request_key },
    deps,
  );
  if (!line) return conflict(unclaimed(owed));
  const outcome = await deps.gateway.payWithCard({
    order_id: line.order_id,
    amount: line.amount,
    currency: line.currency,
    customer: subscription.customer,
    card: request.card,
    billing: "token",
    item: lineItemOf(subscription, line),
  });
  return orBeingSettled(
    async (): Promise<PaymentMethodResult> => {
      switch (outcome.kind) {
        case "success": {
          const { token_id, card, transaction_id, billed } = outcome.value;
          const paid = { transaction_id, ...(billed === undefined ? {} : { billed }) };
          if (token_id === undefined || card === undefined) {
            // Paid, yet no token came back: the payment stands (a verification is refunded), the card is not replaced.
            const closed = await closeLine(subscription, line, { status: "succeeded", ...paid }, deps);
            if (closed?.verification) await refundVerification(closed, deps);
            return { kind: "refused", failure: noToken };
          }
          const at = deps.clock.now().toISOString();
          await deps.repository.putToken({
            token_id,
            subscription_id: subscription.subscription_id,
            card,
            expiry: request.card.expiry,
            status: "active",
            created_at: at,
            updated_at: at,
          });
          return closeAndSettle(subscription, line, { status: "succeeded", ...paid, token_id }, deps);
        }
        case "declined":
        case "invalid":
          await closeAndSettle(subscription, line, refusalClosing(outcome), deps);
          return { kind: "refused", failure: outcome };
        case "unknown":
          await recordUnknownOutcome(line, outcome.reason, deps);
          return { kind: "pending", subscription };
        case "unavailable":
          // Refused before the gateway took it: nothing was charged; the same request may try again.
          if (await voidAttempt(line, `gateway unavailable: ${outcome.reason}`, deps))
            await applyInput(subscription, { kind: "charge_voided", attempt: line }, deps);
          return { kind: "refused", failure: outcome };
      }
    },
    () => ({ kind: "pending", subscription }),
  );
}

const noToken: Failure = {
  kind: "invalid",
  code: "NO_TOKEN",
  message: "the gateway issued no token for the card",
};

const noPlan: Failure = {
  kind: "invalid",
  code: "NO_RECURRING",
  message: "the gateway registered no plan for the card",
};

/** Why a subscription cannot take a new card here, or undefined. */
export function unfitForNewCard(subscription: Subscription): string | undefined {
  if (subscription.status === "canceled") return "subscription is canceled";
  if (subscription.status === "pending") return "the first payment is not settled yet";
  return undefined;
}

/** A past_due subscription owes its current period once that period has started. */
function owesCurrentPeriod(subscription: Subscription, now: Date): boolean {
  if (subscription.status !== "past_due") return false;
  return periodStartOf(subscription, subscription.period).getTime() <= now.getTime();
}

/**
 * The line a new card pays, claimed: the overdue period's current attempt (a new order_id, unless the charge run
 * holds it), or else the next ad hoc line at the smallest amount (the verification).
 */
export async function claimPaymentLine(
  subscription: Subscription,
  ledger: readonly ChargeAttempt[],
  extras: LineExtras,
  deps: PaymentMethodDeps,
): Promise<{ readonly line: ChargeAttempt | undefined; readonly owed: boolean }> {
  if (!owesCurrentPeriod(subscription, deps.clock.now())) {
    const amount = fromCents(minorUnitCents(subscription.plan.currency), subscription.plan.currency);
    const verification = { amount, verification: true as const, ...extras };
    return { line: await claimNextLine(subscription, ledger, verification, deps), owed: false };
  }
  const key = {
    subscription_id: subscription.subscription_id,
    period: subscription.period,
    attempt: subscription.attempt,
  };
  const line = { ...pendingAttempt(key, periodCharge(subscription), deps), ...extras };
  return { line: (await deps.repository.claimAttempt(line)).claimed ? line : undefined, owed: true };
}

export const unclaimed = (owed: boolean) =>
  owed
    ? "a charge of the overdue period is in flight; try again in a few minutes"
    : "this subscription has no ad hoc charge left to verify a card with";

/** `card`: the new card as the window's result shows it (a gateway-managed plan keeps no token record of it). */
export async function closeAndSettle(
  subscription: Subscription,
  line: ChargeAttempt,
  closing: Closing,
  deps: SettleDeps,
  card?: MaskedCard,
): Promise<PaymentMethodResult> {
  const closed = await closeLine(subscription, line, closing, deps);
  if (!closed) return conflict("the payment changed under us; repeat the request");
  return settle(subscription, closed, deps, card);
}

/**
 * What a card's payment line comes to. Succeeded: a verification is refunded, the token replaces the stored one and
 * the old token is deleted at the gateway. Refused: an overdue period's next attempt gets a new order_id, dunning
 * unchanged. Open: settled by the attempt sweep.
 */
export async function settle(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: SettleDeps,
  card?: MaskedCard,
): Promise<PaymentMethodResult> {
  const overdue = !isAdHocPeriod(line.period);
  if (line.status === "succeeded") {
    if (line.verification) await refundVerification(line, deps);
    return subscription.billing_mode === "recurring"
      ? replacePlan(subscription, line, deps, card)
      : replaceToken(subscription, line, deps);
  }
  const refusal = refusalOfLine(line);
  if (refusal === undefined) return { kind: "pending", subscription };
  if (overdue && refusal.kind !== "unavailable")
    await applyInput(subscription, { kind: "card_refused", attempt: line }, deps);
  return { kind: "refused", failure: refusal };
}

/**
 * A gateway-managed plan's new card came with a new plan (registered by the window's payment). The old plan is deleted
 * first — two live plans would both charge the next period — then the new one replaces it. A deletion not confirmed
 * leaves everything as it was, for the repeated completion; a refused one means the gateway no longer has that plan
 * (it refuses a second deletion).
 */
async function replacePlan(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: SettleDeps,
  card: MaskedCard | undefined,
): Promise<PaymentMethodResult> {
  const recurringId = line.recurring_id;
  if (recurringId === undefined) return { kind: "refused", failure: noPlan };
  const old = subscription.recurring_id;
  if (old !== undefined && old !== recurringId) {
    const deleted = await deps.gateway.deleteRecurring(old);
    if (deleted.kind === "unavailable" || deleted.kind === "unknown")
      return conflict(`the old plan's deletion is not confirmed (${failureReason(deleted)}); repeat`);
  }
  const applied = await applyPaidInput(
    subscription,
    (current) => ({
      kind: "payment_method_updated",
      recurring_id: recurringId,
      card,
      paid: paidBy(current, line),
    }),
    deps,
  );
  switch (applied.kind) {
    case "applied":
    case "unchanged":
      return { kind: "changed", subscription: applied.subscription };
    case "stale":
      return conflict("subscription changed meanwhile; repeat the request");
    case "refused":
      // Nothing stands behind the new plan (canceled meanwhile, say): it is deleted too, and an overdue period's sale
      // goes back.
      await deps.gateway.deleteRecurring(recurringId);
      await refundSaleAfterCancel(line, deps);
      return conflict(applied.reason);
  }
}

/**
 * The period a card's payment paid, while the subscription still stands at it: a verification pays none, and an
 * overdue period the attempt sweep already counted (the outcome was settled there) only leaves the card to replace.
 */
const paidBy = (subscription: Subscription, line: ChargeAttempt) =>
  isAdHocPeriod(line.period) || line.period !== subscription.period ? undefined : line;

async function replaceToken(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: SettleDeps,
): Promise<PaymentMethodResult> {
  const token = line.token_id === undefined ? undefined : await deps.repository.getToken(line.token_id);
  if (token === undefined) return { kind: "refused", failure: noToken };
  const applied = await applyPaidInput(
    subscription,
    (current) => ({
      kind: "payment_method_updated",
      token_id: token.token_id,
      card: token.card,
      paid: paidBy(current, line),
    }),
    deps,
  );
  switch (applied.kind) {
    case "applied":
      // The token this write replaced (the transition is guarded by it), whoever wrote it since the first read.
      await retireToken({ token_id: applied.update.expect.token_id ?? undefined }, deps);
      return { kind: "changed", subscription: applied.subscription };
    case "unchanged":
      return { kind: "changed", subscription: applied.subscription };
    case "stale":
      return conflict("subscription changed meanwhile; repeat the request");
    case "refused":
      // Nothing will charge the new token (canceled meanwhile, say): it is deleted at the gateway, and an overdue
      // period's sale goes back.
      await retireToken(token, deps);
      await refundSaleAfterCancel(line, deps);
      return conflict(applied.reason);
  }
}
