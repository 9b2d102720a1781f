import { periodStartOf } from "../base/billing-period";
import { exclusiveRateFor, type TaxRate } from "../base/documents";
import { closedChargeEvent, placedByWrite, subjectOf } from "../base/events";
import {
  type AddedTaxRate,
  type AttemptStatus,
  type Billed,
  type BillingMode,
  type ChargeAttempt,
  type Customer,
  type Discount,
  type MaskedCard,
  type Metadata,
  OPEN_ATTEMPT_STATUSES,
  type Plan,
  type Subscription,
} from "../base/model";
import { fromCents, type InvalidInput, minorUnitCents } from "../base/money";
import { orderIdFor } from "../base/order-id";
import type { Declined, Invalid, Unavailable } from "../base/outcome";
import { isFreeCharge, periodCharge, recurringAmount, totalProblem } from "../base/plan-price";
import { type Conflict, redeemCoupon, releaseIfNeverStarted } from "../catalog/coupons";
import { planOfPrice } from "../catalog/prices";
import { closeLine } from "../invoicing/line-close";
import { type Applied, applyInput } from "../machine/apply-input";
import type { SubscriptionInput } from "../machine/subscription-input";
import type { BillingRepository } from "../ports/billing-repository";
import type { Clock, IdSource } from "../ports/clock";
import type { CouponStore } from "../ports/coupon-store";
import type { NotifyUrl, RecurringRegistration } from "../ports/payment-gateway";
import type { PriceStore } from "../ports/price-store";
import { refundSaleAfterCancel } from "../refunds/cancel-refund";
import { type RefundDeps, refundVerification } from "../refunds/refunds";

// The steps every sign-up shares, whether period 0 is paid server to server (signup.ts) or in the payment window
// (checkout.ts): open a pending subscription with its period-0 attempt claimed, then record what the first payment
// came to. Each step is a conditional write, so repeating one (a repeated callback) changes nothing.

export interface SignupStepDeps {
  readonly repository: BillingRepository;
  readonly clock: Clock;
  /** Where a sign-up that never started gives its coupon's redemption back. */
  readonly coupons: Pick<CouponStore, "release">;
}

/** Applies a step that may end a sign-up before it started: one that does gives its coupon's redemption back. */
export async function endingSignup(
  subscription: Subscription,
  input: SubscriptionInput,
  deps: SignupStepDeps,
): Promise<Applied> {
  const applied = await applyInput(subscription, input, deps);
  if (applied.kind === "applied") await releaseIfNeverStarted(applied.subscription, deps);
  return applied;
}

const DAY_MS = 86_400_000;

export interface NewSubscription {
  readonly customer: Customer;
  readonly metadata?: Metadata;
  /** trial_days: a free trial; the card is verified by the smallest charge (refunded at once), period 1 follows. */
  readonly plan: Plan & { readonly trial_days?: number };
  /** Seats (absent: one). */
  readonly quantity?: number;
  /** A coupon (its id or code) to redeem for the new subscription. */
  readonly coupon?: string;
  /** Chosen before the sign-up opens when a coupon is redeemed for it first (withCoupon). */
  readonly subscription_id?: string;
  /** The redeemed coupon's terms. */
  readonly discount?: Discount;
  /** The tax added on top of its charges (withTaxRate). */
  readonly tax_rate?: AddedTaxRate;
  readonly billing: BillingMode;
  /**
   * The digest of the caller's idempotency key, when there is one: the subscription id is derived from it, so a
   * request retried after a crash meets its first try instead of paying a second time.
   */
  readonly request_key?: string;
  /** A hosted checkout's page settings (checkout.ts). */
  readonly hosted_checkout?: Subscription["hosted_checkout"];
  /** A checkout's end (checkout.ts). */
  readonly checkout_expires_at?: string;
}

/** The id a sign-up's subscription takes: derived from its request key, so a retried request meets its first try. */
const newSubscriptionId = (request: NewSubscription, ids: IdSource) =>
  request.request_key === undefined ? ids.subscriptionId() : ids.subscriptionIdFor(request.request_key);

/** A sign-up as asked: its plan written inline, or a catalog price's (`price`: its id or lookup key). */
export type SignupOrder<T extends NewSubscription> = Omit<T, "plan"> & {
  readonly plan?: T["plan"];
  readonly price?: string;
};

/**
 * A sign-up's plan, from the catalog when it names a price (README, Catalog): the price's amount, currency,
 * interval and trial, its id and its product's name. Refused before anything is written: an unknown price, or one the
 * gateway could not charge itself (400 naming `price`), an archived one (409), a total past the gateway's largest
 * amount (400 naming `quantity`).
 */
export async function withPrice<T extends NewSubscription>(
  order: SignupOrder<T>,
  deps: { readonly prices: PriceStore },
): Promise<T | InvalidInput | Conflict> {
  if (order.price === undefined)
    return order.plan === undefined
      ? { kind: "invalid_input", field: "plan", message: "give plan or price" }
      : ({ ...order, plan: order.plan } as T);
  const priced = await planOfPrice(order.price, order.billing, deps);
  if (priced.kind !== "priced") return priced;
  const tooMuch = totalProblem({ amount: priced.plan.amount, quantity: order.quantity });
  if (tooMuch !== undefined) return { kind: "invalid_input", field: "quantity", message: tooMuch };
  return { ...order, plan: priced.plan } as T;
}

/**
 * A sign-up with a coupon redeems it first, for the subscription it is about to open (README, Coupons): the request
 * then names that subscription and carries the coupon's terms. A coupon that cannot be redeemed stops the sign-up
 * before anything is written or charged.
 */
export async function withCoupon<T extends NewSubscription>(
  request: T,
  deps: { readonly ids: IdSource; readonly coupons: CouponStore; readonly clock: Clock },
): Promise<T | InvalidInput | Conflict> {
  if (request.coupon === undefined) return request;
  const subscription_id = newSubscriptionId(request, deps.ids);
  const redeemer = { subscription_id, currency: request.plan.currency, billing: request.billing };
  const grant = await redeemCoupon(request.coupon, redeemer, deps);
  return grant.kind === "granted" ? { ...request, subscription_id, discount: grant.discount } : grant;
}

/**
 * A sign-up whose buyer's country has an exclusive tax rate (README, Invoices) takes that rate: added on top of every
 * charge from period 0 on.
 */
export function withTaxRate<T extends NewSubscription>(request: T, rates: readonly TaxRate[]): T {
  const rate = exclusiveRateFor(rates, request.customer.address?.country);
  return rate === undefined ? request : { ...request, tax_rate: rate };
}

/** A pending subscription and its claimed period-0 attempt, as stored. */
export interface OpenedSignup {
  readonly subscription: Subscription;
  readonly attempt: ChargeAttempt;
}

/** The request key's sign-up already exists and has its period-0 attempt: it is answered, not started again. */
export interface ReplayedSignup {
  readonly replayed: Subscription;
  /** Its current period-0 line, when the replay met it. */
  readonly line?: ChargeAttempt;
}

/**
 * Creates the pending subscription and claims its period-0 attempt before the gateway is asked anything, like every
 * charge: an outcome we never learn is then settled through retrieve once `leaseMs` has passed, never by paying again.
 */
export async function openSignup(
  request: NewSubscription,
  leaseMs: number,
  deps: SignupStepDeps & { readonly ids: IdSource },
): Promise<OpenedSignup | ReplayedSignup> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const subscription_id = request.subscription_id ?? newSubscriptionId(request, deps.ids);
  // A trial is period 0, free: the schedule is anchored at its end, where period 1 starts.
  const { trial_days: trialDays, ...inline } = request.plan;
  const plan = request.quantity === undefined ? inline : { ...inline, quantity: request.quantity };
  const trialEnd =
    trialDays === undefined ? undefined : new Date(now.getTime() + trialDays * DAY_MS).toISOString();
  const fresh: Subscription = {
    subscription_id,
    status: "pending",
    billing_mode: request.billing,
    customer: request.customer,
    ...(request.metadata === undefined || Object.keys(request.metadata).length === 0
      ? {}
      : { metadata: request.metadata }),
    plan,
    ...(request.discount === undefined ? {} : { discount: request.discount }),
    ...(request.tax_rate === undefined ? {} : { tax_rate: request.tax_rate }),
    // A gateway-managed plan reports its charges to a URL only it knows.
    ...(request.billing === "recurring" ? { notify_token: deps.ids.notifyToken() } : {}),
    ...(request.hosted_checkout === undefined ? {} : { hosted_checkout: request.hosted_checkout }),
    ...(request.checkout_expires_at === undefined
      ? {}
      : { checkout_expires_at: request.checkout_expires_at }),
    ...(trialEnd === undefined
      ? { anchor_at: at }
      : { anchor_at: trialEnd, anchor_period: 1, trial_end: trialEnd }),
    period: 0,
    attempt: 0,
    revision: 1,
    created_at: at,
    updated_at: at,
  };
  const created = await deps.repository.createSubscription(
    fresh,
    placedByWrite(fresh, [
      {
        type: "subscription.created",
        ...subjectOf(fresh),
        billing: fresh.billing_mode,
        plan: { ...fresh.plan },
      },
    ]),
  );
  const subscription = created ? fresh : await deps.repository.getSubscription(subscription_id);
  if (!subscription || (!created && request.request_key === undefined))
    throw new Error("subscription id collision");
  const attempt = periodZeroAttempt(subscription, now, leaseMs);
  if (subscription.status !== "pending") return { replayed: subscription };
  // A retried request whose first try stopped before the claim has not been to the gateway: it goes on from here.
  const claim = await deps.repository.claimAttempt(attempt);
  if (claim.claimed) return { subscription, attempt };
  // Its first try's payment was found never to have happened (the attempt sweep voided it): it pays now, under the
  // next attempt's order_id.
  if (claim.existing.status === "voided") {
    const moved = await applyInput(subscription, { kind: "charge_voided", attempt: claim.existing }, deps);
    if (moved.kind === "applied") return openSignup(request, leaseMs, deps);
  }
  return { replayed: subscription, line: claim.existing };
}

/**
 * The claim of a pending sign-up's current period-0 attempt (a retry after the gateway was unavailable, or a hosted
 * checkout's next try, goes on with the next attempt number: a new order_id).
 */
export function periodZeroAttempt(subscription: Subscription, now: Date, leaseMs: number): ChargeAttempt {
  const at = now.toISOString();
  const key = { subscription_id: subscription.subscription_id, period: 0, attempt: subscription.attempt };
  const charge = periodCharge(subscription);
  return {
    ...key,
    order_id: orderIdFor(key),
    // A trial's card, and one whose first period is free, is verified by the smallest amount its currency allows,
    // refunded once paid.
    ...(subscription.trial_end === undefined && !isFreeCharge(charge)
      ? charge
      : {
          amount: fromCents(minorUnitCents(charge.currency), charge.currency),
          currency: charge.currency,
          verification: true as const,
        }),
    status: "pending",
    lease_until: new Date(now.getTime() + leaseMs).toISOString(),
    created_at: at,
    updated_at: at,
  };
}

/** Gateway-managed billing: the plan the gateway charges from period 1 on, reporting each charge to our webhook. */
export function recurringRegistration(
  subscription: Subscription,
  deps: { readonly recurringNotifyUrl: NotifyUrl },
): RecurringRegistration | undefined {
  if (subscription.billing_mode !== "recurring") return undefined;
  return {
    amount: recurringAmount(subscription.plan, subscription.tax_rate),
    interval_months: subscription.plan.interval_months,
    first_charge_at: periodStartOf(subscription, 1).toISOString(),
    notify_url: deps.recurringNotifyUrl(subscription),
  };
}

/**
 * Attempts a proven payment closes: open ones, and a voided one (retrieve found nothing while the customer was still
 * in the window; the sale the gateway now vouches for exists all the same). A closed attempt is never rewritten.
 */
export const CLOSABLE_BY_PAYMENT: readonly AttemptStatus[] = [...OPEN_ATTEMPT_STATUSES, "voided"];

/** What the gateway said about a successful first payment. Never card data: the masked card only. */
export interface FirstPayment {
  readonly transaction_id?: string;
  /** The card was billed in its own currency (DCC). */
  readonly billed?: Billed;
  readonly token_id?: string;
  readonly recurring_id?: string;
  readonly card?: MaskedCard;
  /** YYYYMM, when known (the server-to-server sign-up had the card in hand). */
  readonly card_expiry?: string;
}

/**
 * Period 0 is paid: the token is stored, the open period-0 line names what the payment issued (token, plan,
 * transaction), the subscription is made active at period 1 (our charge run bills it under token billing; the gateway
 * does under recurring billing), and the line is closed as succeeded. The token is recorded before anything else can
 * fail, and the line stays open until the subscription has it: a write that fails after the payment leaves a line the
 * attempt sweep (or the same request again) finishes with its card (finishPaidSignup), never a paid sign-up without
 * it. Only the write that closes the attempt announces the charge, so a repeated call announces nothing new.
 */
export async function recordFirstPayment(
  { subscription, attempt }: OpenedSignup,
  paid: FirstPayment,
  deps: SignupStepDeps & Pick<RefundDeps, "gateway" | "policy">,
): Promise<Subscription> {
  const at = deps.clock.now().toISOString();
  const { subscription_id } = subscription;
  const { transaction_id, token_id, recurring_id, card } = paid;
  const closable = CLOSABLE_BY_PAYMENT.includes(attempt.status);
  if (token_id !== undefined && card !== undefined && closable) {
    await deps.repository.putToken({
      token_id,
      subscription_id,
      card,
      expiry: paid.card_expiry,
      status: "active",
      created_at: at,
      updated_at: at,
    });
  }
  const issued = { transaction_id, token_id, recurring_id };
  if (closable && (token_id !== undefined || recurring_id !== undefined))
    await deps.repository.updateAttempt(attempt, {
      expect: { status: attempt.status, lease_until: attempt.lease_until },
      set: { ...issued, updated_at: at },
    });
  const activated = await applyInput(
    subscription,
    { kind: "first_payment", token_id, card, recurring_id },
    deps,
  );
  // The close announces the charge (in its own write): the money moved even if the subscription was canceled meanwhile.
  if (closable)
    await closeLine(
      subscription,
      attempt,
      { status: "succeeded", ...issued, ...(paid.billed === undefined ? {} : { billed: paid.billed }) },
      deps,
    );
  // A trial's verification goes back to the customer in full (a refund that fails stays on record for support).
  if (attempt.verification) await refundVerification(attempt, deps);
  if (activated.kind === "applied") return activated.subscription;
  // Canceled before its first payment settled: the sale goes back.
  await refundSaleAfterCancel({ ...attempt, status: "succeeded", transaction_id }, deps);
  // Already moved on (a repeated callback, or canceled meanwhile): answered as it stands.
  return (await deps.repository.getSubscription(subscription_id)) ?? subscription;
}

/** Whether a pending sign-up's period-0 line already names what its payment issued (recordFirstPayment's mark). */
export const namesIssued = (line: ChargeAttempt) =>
  line.period === 0 && (line.token_id !== undefined || line.recurring_id !== undefined);

/**
 * A pending sign-up's period 0 found paid after the request that paid it stopped (the attempt sweep settled its line,
 * or the same request came again). Its line names the token (or plan) the payment issued: the sign-up is finished
 * with it, its card read from the token's record. A card sign-up whose line names none lost what the gateway issued
 * before it could be recorded: rather than a paid subscription with no card to bill, the sign-up ends
 * (`signup_incomplete`) and its sale goes back in full. A window checkout's result may still bring its token: it is
 * left to the charge close (README, Subscription lifecycle).
 */
export async function finishPaidSignup(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: SignupStepDeps & Pick<RefundDeps, "gateway" | "policy">,
): Promise<"finished" | "refunded" | "left"> {
  if (namesIssued(line)) {
    const token = line.token_id === undefined ? undefined : await deps.repository.getToken(line.token_id);
    const opened = { subscription, attempt: line };
    await recordFirstPayment(
      opened,
      {
        transaction_id: line.transaction_id,
        token_id: line.token_id,
        recurring_id: line.recurring_id,
        card: token?.card,
      },
      deps,
    );
    return "finished";
  }
  if (subscription.billing_mode !== "token" || line.window !== undefined) return "left";
  const reason = "signup_incomplete";
  await endingSignup(
    subscription,
    { kind: "first_payment_refused", attempt: line.attempt, reason, retry: false },
    deps,
  );
  await refundSaleAfterCancel(line, deps);
  return "refunded";
}

/** A first payment the gateway refused: nothing was charged, so the attempt closes and the sign-up ends. */
export type FirstPaymentRefusal = Declined | Invalid | Unavailable;

/**
 * Closes the period-0 attempt with the refusal (if still open) and cancels the pending subscription (`reason` →
 * status_reason).
 */
export async function recordRefusedSignup(
  { subscription, attempt }: OpenedSignup,
  refusal: FirstPaymentRefusal,
  reason: string,
  deps: SignupStepDeps,
  keepForRetry = false,
): Promise<void> {
  const updated_at = deps.clock.now().toISOString();
  const unavailable = refusal.kind === "unavailable";
  if (OPEN_ATTEMPT_STATUSES.includes(attempt.status)) {
    const closed: ChargeAttempt = {
      ...attempt,
      status: refusal.kind === "declined" ? "declined" : refusal.kind === "invalid" ? "failed" : "voided",
      rescode: unavailable ? undefined : refusal.code,
      resmsg: unavailable ? refusal.reason : refusal.message,
      updated_at,
    };
    await deps.repository.updateAttempt(attempt, {
      expect: { status: attempt.status, lease_until: attempt.lease_until },
      set: {
        status: closed.status,
        rescode: closed.rescode,
        resmsg: closed.resmsg,
        ...(refusal.kind === "declined" ? { errcode: refusal.errcode, decline_reason: refusal.reason } : {}),
        updated_at,
      },
      remove: ["lease_until"],
      // Nothing was charged: a refusal announces charge.failed, an unavailable gateway nothing.
      events: unavailable ? undefined : [closedChargeEvent(closed, subscription)],
    });
  }
  await endingSignup(
    subscription,
    { kind: "first_payment_refused", attempt: attempt.attempt, reason, retry: keepForRetry },
    deps,
  );
}
