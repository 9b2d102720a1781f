import type { ChargePolicy } from "../base/charge-policy";
import {
  type ChargeAttempt,
  hasExpired,
  maskedCardSchema,
  OPEN_ATTEMPT_STATUSES,
  type Subscription,
} from "../base/model";
import { type InvalidInput, invalidCurrency } from "../base/money";
import { attemptKeyOf } from "../base/order-id";
import type { GatewayOutcome } from "../base/outcome";
import { failureReason } from "../base/outcome";
import { lineItemOf } from "../base/plan-price";
import type { Conflict } from "../catalog/coupons";
import type { IdSource } from "../ports/clock";
import type { CouponStore } from "../ports/coupon-store";
import type { NotifyUrl, PaymentGateway, WindowPrepared, WindowResult } from "../ports/payment-gateway";
import type { PriceStore } from "../ports/price-store";
import { asRefusal, keepWindowLaunch, retireIssued, windowExpiry } from "../signup/payment-window";
import {
  CLOSABLE_BY_PAYMENT,
  endingSignup,
  type FirstPaymentRefusal,
  type NewSubscription,
  type OpenedSignup,
  openSignup,
  periodZeroAttempt,
  recordFirstPayment,
  recordRefusedSignup,
  recurringRegistration,
  type SignupOrder,
  type SignupStepDeps,
  withCoupon,
  withPrice,
  withTaxRate,
} from "../signup/signup-steps";
import type { PaymentMethodResult } from "./payment-method";
import { completePaymentMethodWindow } from "./payment-method-window";

export interface CheckoutDeps extends SignupStepDeps {
  readonly gateway: PaymentGateway;
  readonly ids: IdSource;
  /** Its currencies: a checkout in any other is refused before anything is written. */
  readonly policy: Pick<ChargePolicy, "currencies" | "inflightWindowMs" | "invoicing">;
  /** Where the gateway reports the charges of a gateway-managed plan (our recurring webhook for this subscription). */
  readonly recurringNotifyUrl: NotifyUrl;
  /** The coupons a checkout redeems, and the catalog's prices it may take its plan from. */
  readonly coupons: CouponStore;
  readonly prices: PriceStore;
  /** Our status_url webhook (`<webhook base>/status`): where the gateway sends the window result. */
  readonly statusUrl: string;
  /**
   * Our hosted checkout's return page for a subscription, its link valid until the checkout expires: where the window
   * sends a hosted checkout's customer.
   */
  readonly checkoutReturnUrl: (subscriptionId: string, expiresAt: string) => string;
}

export interface CheckoutRequest extends NewSubscription {
  /** The merchant's page the customer returns to; without one the checkout is hosted (our pages). */
  readonly return_url?: string;
  /** Language of the payment window (and of a hosted checkout's pages). */
  readonly lang?: string;
  /** A hosted checkout's page: what is bought, and where the customer goes on after paying or giving up. */
  readonly description?: string;
  readonly success_url?: string;
  readonly cancel_url?: string;
  /** How long the checkout waits for the customer (default: the window's life, a day). */
  readonly expires_in_minutes?: number;
}

/** What the merchant's page needs to open the payment window. */
export interface Checkout extends WindowPrepared {
  readonly checkout_id: string;
  readonly subscription_id: string;
  readonly order_id: string;
  /** When the checkout expires if it is not paid by then (its hosted page's link with it). */
  readonly expires_at: string;
}

export type CheckoutStart =
  | { readonly kind: "started"; readonly checkout: Checkout }
  | { readonly kind: "refused"; readonly failure: FirstPaymentRefusal; readonly subscription_id: string }
  | InvalidInput
  | Conflict;

/**
 * Window sign-up (README, Merchant API: POST /v1/checkouts): a pending subscription with its period-0 attempt
 * claimed, then ready — a PAYMENT window that also creates the token (token billing) or registers the gateway-managed
 * plan (recurring billing). The result comes back on status_url (completeCheckout). The checkout id is the
 * subscription id. Without a return_url the checkout is hosted: the window returns to our page, and a refused
 * payment leaves it pending for another try from there (reopenCheckout). Its period-0 line is leased until the
 * checkout expires, when the attempt sweep settles it and closes a checkout still unpaid (expireCheckout).
 */
export async function startCheckout(
  order: SignupOrder<CheckoutRequest>,
  deps: CheckoutDeps,
): Promise<CheckoutStart> {
  const request = await withPrice(order, deps);
  if ("kind" in request) return request;
  const invalid = invalidCurrency(request.plan.currency, deps.policy.currencies);
  if (invalid) return invalid;
  const { return_url, lang, description, success_url, cancel_url } = request;
  const hosted_checkout =
    return_url === undefined ? { description, success_url, cancel_url, lang } : undefined;
  const now = deps.clock.now();
  const checkout_expires_at = windowExpiry(now, request.expires_in_minutes);
  // A checkout has no request key: each one opens its own window (ready charges nothing).
  const discounted = await withCoupon({ ...request, request_key: undefined }, deps);
  if ("kind" in discounted) return discounted;
  const signup = await openSignup(
    { ...withTaxRate(discounted, deps.policy.invoicing.tax_rates), hosted_checkout, checkout_expires_at },
    Date.parse(checkout_expires_at) - now.getTime(),
    deps,
  );
  if ("replayed" in signup) throw new Error("a checkout never replays a sign-up");
  const outcome = await openWindow(signup, return_url, checkout_expires_at, deps);
  const { subscription, attempt } = signup;
  if (outcome.kind === "success") {
    const { subscription_id } = subscription;
    return {
      kind: "started",
      checkout: {
        checkout_id: subscription_id,
        subscription_id,
        order_id: attempt.order_id,
        expires_at: checkout_expires_at,
        ...outcome.value,
      },
    };
  }
  // ready charges nothing, and without the fgkey nobody can pay: the checkout ends here; the merchant may start anew.
  const refusal = asRefusal(outcome);
  await recordRefusedSignup(signup, refusal, `checkout_${refusal.kind}`, deps);
  return { kind: "refused", failure: refusal, subscription_id: subscription.subscription_id };
}

/** ready for the sign-up's claimed line (open until `expiresAt`), the launch kept on the line for our pages. */
async function openWindow(
  { subscription, attempt }: OpenedSignup,
  returnUrl: string | undefined,
  expiresAt: string,
  deps: CheckoutDeps,
): Promise<GatewayOutcome<WindowPrepared>> {
  const outcome = await deps.gateway.prepareWindow({
    order_id: attempt.order_id,
    amount: attempt.amount,
    currency: attempt.currency,
    customer: subscription.customer,
    billing: subscription.billing_mode,
    recurring: recurringRegistration(subscription, deps),
    item: lineItemOf(subscription, attempt),
    status_url: deps.statusUrl,
    return_url: returnUrl ?? deps.checkoutReturnUrl(subscription.subscription_id, expiresAt),
    lang: subscription.hosted_checkout?.lang,
  });
  if (outcome.kind === "success") await keepWindowLaunch(attempt, outcome.value, deps);
  return outcome;
}

export type CheckoutReopening =
  /** The next try's window is prepared (its launch is on its line). */
  | { readonly kind: "opened"; readonly attempt: ChargeAttempt }
  /** A try is open already (another request opened it, or the customer has not paid yet): nothing new. */
  | { readonly kind: "open" }
  /** Paid, canceled, expired, unknown or not hosted: nothing to try again. */
  | { readonly kind: "closed" }
  /** ready was refused (nothing charged): the customer may try once more. */
  | { readonly kind: "refused"; readonly failure: FirstPaymentRefusal };

/**
 * A hosted checkout's next try after a refused payment: the same subscription's next period-0 attempt, a new
 * order_id, claimed before ready like the first and leased until the checkout expires. Concurrent tries claim the same
 * attempt key, so one window is opened. An expired checkout opens nothing (the sweep closes it).
 */
export async function reopenCheckout(subscriptionId: string, deps: CheckoutDeps): Promise<CheckoutReopening> {
  const subscription = await deps.repository.getSubscription(subscriptionId);
  const now = deps.clock.now();
  if (
    subscription?.status !== "pending" ||
    subscription.hosted_checkout === undefined ||
    hasExpired(subscription.checkout_expires_at, now)
  )
    return { kind: "closed" };
  const expiresAt = subscription.checkout_expires_at ?? windowExpiry(now, undefined);
  const attempt = periodZeroAttempt(subscription, now, Date.parse(expiresAt) - now.getTime());
  const claim = await deps.repository.claimAttempt(attempt);
  if (!claim.claimed) return { kind: "open" };
  const signup = { subscription, attempt };
  const outcome = await openWindow(signup, undefined, expiresAt, deps);
  if (outcome.kind === "success") return { kind: "opened", attempt };
  const refusal = asRefusal(outcome);
  await recordRefusedSignup(signup, refusal, `checkout_${refusal.kind}`, deps, true);
  return { kind: "refused", failure: refusal };
}

export type CompletionDeps = SignupStepDeps & {
  readonly gateway: PaymentGateway;
  /** Of the charge policy, the in-flight window of a trial's verification refund, and how invoices are issued. */
  readonly policy: Pick<ChargePolicy, "inflightWindowMs" | "invoicing">;
};

/** What a status_url call came to; `subscription` is as stored afterwards, so a repeated call answers the same. */
export type CheckoutCompletion =
  | { readonly kind: "paid"; readonly subscription: Subscription }
  /** `code`: the gateway's code of the refusal. */
  | { readonly kind: "refused"; readonly subscription: Subscription; readonly code: string }
  /** REGISTERED (virtual account): nothing changes until the deposit notice (status SALE) arrives. */
  | { readonly kind: "awaiting_deposit"; readonly subscription: Subscription }
  /** The query did not verify, or names no checkout of ours: nothing changed. */
  | { readonly kind: "rejected"; readonly reason: string }
  /** The window's result is recorded already (the gateway calls status_url more than once): nothing to do. */
  | { readonly kind: "recorded"; readonly subscription: Subscription }
  /** verify could not be asked (gateway unavailable): nothing changed; process the same query again later. */
  | { readonly kind: "retry"; readonly reason: string };

const rejected = (reason: string): CheckoutCompletion => ({ kind: "rejected", reason });

/**
 * The status_url intake of a checkout. The query is verified with the gateway before anything is read from it; then
 * its order_id leads to the period-0 attempt. A sale stores the token, closes the attempt and activates the
 * subscription; a refusal closes the attempt and cancels the checkout. A result that comes after the checkout expired
 * finds it canceled: a sale is recorded and refunded in full at once. Every write is conditional, so the repeated
 * calls the gateway may make change nothing.
 */
export async function completeCheckout(query: string, deps: CompletionDeps): Promise<CheckoutCompletion> {
  // Before the gateway is asked anything: the query must name a window of ours that still awaits its result.
  const named = await lineOf(deps.gateway.windowOrderOf(query), deps);
  if (named === undefined) return rejected("the query names no window of ours");
  if (!awaitsWindowResult(named.attempt, named.subscription))
    return { kind: "recorded", subscription: named.subscription };
  const verified = await deps.gateway.verifyWindowResult(query);
  if (verified.kind === "unavailable" || verified.kind === "unknown")
    return { kind: "retry", reason: verified.reason };
  if (verified.kind !== "success")
    return rejected(`the gateway did not vouch for the window result (${failureReason(verified)})`);
  const result = verified.value;
  const found = await findWindowLine(result, deps);
  if (found?.attempt.purpose === "payment_method")
    return cardUpdateCompletion(
      await completePaymentMethodWindow(found.subscription, found.attempt, result, deps),
      result,
      found.subscription,
    );
  const line = found?.attempt.period === 0 ? found : undefined;
  if (!line) return rejected("no checkout matches the window result");
  // Too late for a checkout past its end: it is closed first, so a payment goes back (recordFirstPayment).
  const signup = { ...line, subscription: await closedIfExpired(line.subscription, deps) };

  const { outcome } = result;
  switch (outcome.kind) {
    case "refused": {
      const refusal = asRefusal(outcome.failure);
      // A hosted checkout stays pending: its page offers the customer another try.
      const hosted = signup.subscription.hosted_checkout !== undefined;
      await recordRefusedSignup(signup, refusal, `checkout_${refusal.kind}`, deps, hosted);
      return withStored(
        signup,
        (subscription) => ({ kind: "refused", subscription, code: outcome.code }),
        deps,
      );
    }
    case "paid": {
      const card = maskedCardSchema.safeParse(outcome.card);
      const recorded = await recordFirstPayment(
        signup,
        {
          transaction_id: outcome.transaction_id,
          billed: outcome.billed,
          token_id: outcome.token_id,
          recurring_id: outcome.recurring_id,
          card: card.success ? card.data : undefined,
        },
        deps,
      );
      // Closed before its payment came (expired, canceled): its sale went back, and what it issued goes too.
      if (recorded.status === "canceled") await retireIssued(outcome, deps);
      return withStored(signup, (subscription) => ({ kind: "paid", subscription }), deps);
    }
    case "awaiting_deposit":
      return withStored(signup, (subscription) => ({ kind: "awaiting_deposit", subscription }), deps);
    case "other":
      // Not the outcome of a PAYMENT window; left for retrieve (the attempt sweep) to settle.
      return rejected(`unexpected window ${outcome.description}`);
  }
}

/** What a new card's window came to, as a status_url completion (a conflict is retried: it settles again). */
function cardUpdateCompletion(
  outcome: PaymentMethodResult,
  result: WindowResult,
  subscription: Subscription,
): CheckoutCompletion {
  switch (outcome.kind) {
    case "changed":
      return { kind: "paid", subscription: outcome.subscription };
    case "pending":
      return { kind: "awaiting_deposit", subscription: outcome.subscription };
    case "refused":
      return {
        kind: "refused",
        subscription,
        code: result.outcome.kind === "refused" ? result.outcome.code : "",
      };
    case "conflict":
      return { kind: "retry", reason: outcome.reason };
    case "not_found":
      return rejected("the window's subscription is gone");
  }
}

/** The ledger line an order_id names and its subscription, if both exist. */
async function lineOf(orderId: string | undefined, deps: CompletionDeps): Promise<OpenedSignup | undefined> {
  const key = orderId === undefined ? undefined : attemptKeyOf(orderId);
  if (key === undefined) return undefined;
  const [attempt, subscription] = await Promise.all([
    deps.repository.getAttempt(key),
    deps.repository.getSubscription(key.subscription_id),
  ]);
  return attempt && subscription ? { subscription, attempt } : undefined;
}

/** The ledger line and the subscription a verified window result is about, if it describes what we asked for. */
async function findWindowLine(result: WindowResult, deps: CompletionDeps): Promise<OpenedSignup | undefined> {
  const found = await lineOf(result.order_id, deps);
  if (found === undefined) return undefined;
  const { attempt } = found;
  const sameOrder = attempt.currency === result.currency && Number(attempt.amount) === Number(result.amount);
  return sameOrder ? found : undefined;
}

/**
 * Whether a window result can still change anything for this line: a window's line (a sign-up's period 0, a new
 * card's) that is open or was voided (the customer may pay after the sweep found nothing), or that was paid while its
 * subscription missed what the payment leads to (a crash between the two writes: the result finishes it).
 */
function awaitsWindowResult(line: ChargeAttempt, subscription: Subscription): boolean {
  const isWindow = line.period === 0 || line.purpose === "payment_method";
  if (!isWindow) return false;
  if (CLOSABLE_BY_PAYMENT.includes(line.status)) return true;
  if (line.status !== "succeeded") return false;
  if (line.purpose !== "payment_method") return subscription.status === "pending";
  return line.token_id !== undefined
    ? subscription.token_id !== line.token_id
    : line.recurring_id !== undefined && subscription.recurring_id !== line.recurring_id;
}

async function withStored(
  signup: OpenedSignup,
  answer: (subscription: Subscription) => CheckoutCompletion,
  deps: CompletionDeps,
): Promise<CheckoutCompletion> {
  const stored = await deps.repository.getSubscription(signup.subscription.subscription_id);
  return answer(stored ?? signup.subscription);
}

/** A checkout that waits for its payment past its end: the sweep or a late result closes it. */
const pastItsEnd = (subscription: Subscription, now: Date) =>
  subscription.status === "pending" && hasExpired(subscription.checkout_expires_at, now);

/** A pending checkout past its end, closed as expired; the subscription as it stands then (unchanged otherwise). */
async function closedIfExpired(subscription: Subscription, deps: SignupStepDeps): Promise<Subscription> {
  if (!pastItsEnd(subscription, deps.clock.now())) return subscription;
  const closed = await endingSignup(subscription, { kind: "checkout_expired" }, deps);
  if (closed.kind === "applied") return closed.subscription;
  return (await deps.repository.getSubscription(subscription.subscription_id)) ?? subscription;
}

/**
 * What the attempt sweep made of a checkout found past its end: closed; left for a later sweep (its try is being
 * settled, or it changed meanwhile); or nothing to close (paid or closed since the index listed it).
 */
export type CheckoutExpiry = "expired" | "deferred" | "settled";

/**
 * Closes a checkout still pending past its end (the attempt sweep, from the open index): canceled, checkout_expired,
 * announced as checkout.expired. Only once its current try's line is settled — retrieve (the sweep's attempt step)
 * has found no sale, or the try was refused, or none was made — so a checkout whose sale the gateway holds is never
 * expired: that sale completes it. A paid line whose subscription missed its activation waits for the repeated
 * status_url that finishes it.
 */
export async function expireCheckout(subscriptionId: string, deps: SignupStepDeps): Promise<CheckoutExpiry> {
  const subscription = await deps.repository.getSubscription(subscriptionId);
  if (subscription === undefined || !pastItsEnd(subscription, deps.clock.now())) return "settled";
  const line = await deps.repository.getAttempt({
    subscription_id: subscriptionId,
    period: 0,
    attempt: subscription.attempt,
  });
  const unsettled =
    line !== undefined && (OPEN_ATTEMPT_STATUSES.includes(line.status) || line.status === "succeeded");
  if (unsettled) return "deferred";
  const closed = await endingSignup(subscription, { kind: "checkout_expired" }, deps);
  return closed.kind === "applied" ? "expired" : "deferred";
}
