import { periodStartOf } from "../base/billing-period";
import { type BillingEvent, expiredWindowEvent } from "../base/events";
import {
  type ChargeAttempt,
  hasExpired,
  maskedCardSchema,
  OPEN_ATTEMPT_STATUSES,
  planDue,
  type Subscription,
} from "../base/model";
import { lineItemOf, periodCharge } from "../base/plan-price";
import { refusalClosing, voidAttempt } from "../charging/ledger-lines";
import { closeLine } from "../invoicing/line-close";
import { applyInput } from "../machine/apply-input";
import type {
  NotifyUrl,
  RecurringRegistration,
  WindowOutcome,
  WindowPrepared,
  WindowResult,
} from "../ports/payment-gateway";
import { PAID_AFTER_EXPIRY, refundWholeSale } from "../refunds/cancel-refund";
import { asRefusal, keepWindowLaunch, retireIssued, windowExpiry } from "../signup/payment-window";
import {
  claimPaymentLine,
  closeAndSettle,
  type PaymentMethodDeps,
  type PaymentMethodResult,
  type SettleDeps,
  settle,
  unclaimed,
  unfitForNewCard,
} from "./payment-method";

// A new card typed in the gateway's payment window (README, Subscription lifecycle: payment_method_updated): the same
// payment as with a card sent server to server — the overdue period, or the smallest amount refunded at once — on a
// line marked payment_method and left to the customer until the window expires. Its status_url result (verified like
// a checkout's) completes the card update; at the window's end the attempt sweep voids an unpaid line and announces
// checkout.expired, and a payment that comes after that goes back.

export interface PaymentMethodWindowDeps extends PaymentMethodDeps {
  /** Where the gateway reports the charges of a gateway-managed plan (our recurring webhook for this subscription). */
  readonly recurringNotifyUrl: NotifyUrl;
  /** Our status_url webhook: where the gateway sends the window result. */
  readonly statusUrl: string;
  /** The merchant's page the customer returns to when the request names none. */
  readonly defaultReturnUrl: string;
}

export interface PaymentMethodWindowRequest {
  readonly subscription_id: string;
  readonly return_url?: string;
  readonly lang?: string;
  /** How long the window waits for the customer (default: the window's life, a day). */
  readonly expires_in_minutes?: number;
}

export type PaymentMethodWindowStart =
  | {
      readonly kind: "started";
      readonly window: WindowPrepared & {
        readonly subscription_id: string;
        readonly order_id: string;
        readonly expires_at: string;
      };
    }
  | Exclude<PaymentMethodResult, { readonly kind: "changed" | "pending" }>;

/** Claims the payment's line for the window's lease and prepares the window (ready); the fgkey opens it. */
export async function startPaymentMethodWindow(
  request: PaymentMethodWindowRequest,
  deps: PaymentMethodWindowDeps,
): Promise<PaymentMethodWindowStart> {
  const subscription = await deps.repository.getSubscription(request.subscription_id);
  if (!subscription) return { kind: "not_found" };
  const unfit = unfitForNewCard(subscription);
  if (unfit !== undefined) return { kind: "conflict", reason: unfit };
  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  const lease_until = windowExpiry(deps.clock.now(), request.expires_in_minutes);
  const { line, owed } = await claimPaymentLine(
    subscription,
    ledger,
    { purpose: "payment_method", lease_until },
    deps,
  );
  if (!line) return { kind: "conflict", reason: unclaimed(owed) };
  const outcome = await deps.gateway.prepareWindow({
    order_id: line.order_id,
    amount: line.amount,
    currency: line.currency,
    customer: subscription.customer,
    billing: subscription.billing_mode,
    recurring: newPlan(subscription, owed, deps),
    item: lineItemOf(subscription, line),
    status_url: deps.statusUrl,
    return_url: request.return_url ?? deps.defaultReturnUrl,
    lang: request.lang,
  });
  if (outcome.kind === "success") {
    await keepWindowLaunch(line, outcome.value, deps);
    return {
      kind: "started",
      window: {
        subscription_id: subscription.subscription_id,
        order_id: line.order_id,
        expires_at: lease_until,
        ...outcome.value,
      },
    };
  }
  // ready charges nothing, and without the fgkey nobody can pay: the line is voided, the merchant may start anew.
  await voidLine(subscription, line, "window not prepared", deps);
  return { kind: "refused", failure: asRefusal(outcome) };
}

/**
 * The verified status_url result of a new card's window: a sale stores the token and settles the line as the card
 * path does (the overdue period paid, or the verification refunded; the token replaced, the old one deleted); a
 * refusal closes it (an overdue period's next attempt gets a new order_id). A result that comes after the window
 * expired finds its line voided (closed now, if the sweep has not yet): a sale is recorded and refunded in full at
 * once, the card on file kept. Safe to repeat: every write is conditional.
 */
export async function completePaymentMethodWindow(
  subscription: Subscription,
  open: ChargeAttempt,
  result: WindowResult,
  deps: SettleDeps,
): Promise<PaymentMethodResult> {
  const { outcome } = result;
  const line = await closedIfExpired(subscription, open, deps);
  if (line.status === "voided" && outcome.kind === "paid")
    return refundLatePayment(subscription, line, outcome, deps);
  // A repeated result: the line as it closed decides.
  if (!OPEN_ATTEMPT_STATUSES.includes(line.status)) return settle(subscription, line, deps);
  if (outcome.kind === "refused") {
    const refusal = asRefusal(outcome.failure);
    if (refusal.kind === "unavailable") {
      await voidLine(subscription, line, refusal.reason, deps);
      return { kind: "refused", failure: refusal };
    }
    return closeAndSettle(subscription, line, refusalClosing(refusal), deps);
  }
  if (outcome.kind !== "paid") return { kind: "pending", subscription };
  const card = maskedCardSchema.safeParse(outcome.card);
  const tokenId = outcome.token_id;
  if (subscription.billing_mode === "token" && tokenId !== undefined && card.success) {
    const at = deps.clock.now().toISOString();
    await deps.repository.putToken({
      token_id: tokenId,
      subscription_id: subscription.subscription_id,
      card: card.data,
      status: "active",
      created_at: at,
      updated_at: at,
    });
  }
  return closeAndSettle(
    subscription,
    line,
    {
      status: "succeeded",
      transaction_id: outcome.transaction_id,
      ...(outcome.billed === undefined ? {} : { billed: outcome.billed }),
      token_id: tokenId,
      recurring_id: outcome.recurring_id,
    },
    deps,
    card.success ? card.data : undefined,
  );
}

/**
 * A gateway-managed plan's new card registers a new plan with its payment, charged by the gateway from the period after
 * the one it pays (the overdue period), or from the next period (a verification).
 */
function newPlan(
  subscription: Subscription,
  owed: boolean,
  deps: { readonly recurringNotifyUrl: NotifyUrl },
): RecurringRegistration | undefined {
  if (subscription.billing_mode !== "recurring") return undefined;
  const plan = planDue(subscription);
  return {
    amount: periodCharge(subscription).amount,
    interval_months: plan.interval_months,
    first_charge_at: periodStartOf(subscription, subscription.period + (owed ? 1 : 0)).toISOString(),
    notify_url: deps.recurringNotifyUrl(subscription),
  };
}

/**
 * Nothing was charged on the line: voided (announcing `events`), and an overdue period's next attempt gets a new
 * order_id.
 */
async function voidLine(
  subscription: Subscription,
  line: ChargeAttempt,
  reason: string,
  deps: Pick<SettleDeps, "repository" | "clock">,
  events?: readonly BillingEvent[],
): Promise<void> {
  if ((await voidAttempt(line, reason, deps, events)) && line.period === subscription.period)
    await applyInput(subscription, { kind: "charge_voided", attempt: line }, deps);
}

/** A window's line still open past the window's end, closed as expired (as the sweep would); the line as it stands. */
async function closedIfExpired(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: SettleDeps,
): Promise<ChargeAttempt> {
  const open = OPEN_ATTEMPT_STATUSES.includes(line.status);
  if (!open || !hasExpired(line.window?.expires_at, deps.clock.now())) return line;
  await voidLine(subscription, line, "window expired", deps, [expiredWindowEvent(line, subscription)]);
  // Voided now, or closed meanwhile (the sweep, a repeated result): as stored, which the next write expects.
  return (await deps.repository.getAttempt(line)) ?? line;
}

/**
 * A sale in a window that had closed unpaid (expired, or refused as unavailable): the money is recorded on its line
 * and goes back whole at once; the card on file stays, and the token or plan the sale issued is deleted at the gateway.
 */
async function refundLatePayment(
  subscription: Subscription,
  line: ChargeAttempt,
  paid: Extract<WindowOutcome, { readonly kind: "paid" }>,
  deps: SettleDeps,
): Promise<PaymentMethodResult> {
  const closed = await closeLine(
    subscription,
    line,
    {
      status: "succeeded",
      transaction_id: paid.transaction_id,
      ...(paid.billed === undefined ? {} : { billed: paid.billed }),
    },
    deps,
  );
  if (closed !== undefined) await refundWholeSale(closed, PAID_AFTER_EXPIRY, deps);
  await retireIssued(paid, deps);
  return {
    kind: "refused",
    failure: { kind: "invalid", code: "WINDOW_EXPIRED", message: PAID_AFTER_EXPIRY },
  };
}
