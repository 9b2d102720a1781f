import { orBeingSettled } from "../base/after-the-gateway";
import type { ChargePolicy } from "../base/charge-policy";
import type { Subscription } from "../base/model";
import { type InvalidInput, invalidCurrency } from "../base/money";
import type { Failure } from "../base/outcome";
import { lineItemOf } from "../base/plan-price";
import type { Conflict } from "../catalog/coupons";
import type { BillingRepository } from "../ports/billing-repository";
import type { Clock, IdSource } from "../ports/clock";
import type { CouponStore } from "../ports/coupon-store";
import type { CardDetails, NotifyUrl, PaymentGateway } from "../ports/payment-gateway";
import type { PriceStore } from "../ports/price-store";
import {
  finishPaidSignup,
  type NewSubscription,
  namesIssued,
  openSignup,
  type ReplayedSignup,
  recordFirstPayment,
  recordRefusedSignup,
  recurringRegistration,
  type SignupOrder,
  withCoupon,
  withPrice,
  withTaxRate,
} from "./signup-steps";

export interface SignupDeps {
  readonly repository: BillingRepository;
  readonly gateway: PaymentGateway;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly policy: ChargePolicy;
  /** Where the gateway reports the charges of a gateway-managed plan (our recurring webhook for this subscription). */
  readonly recurringNotifyUrl: NotifyUrl;
  readonly coupons: CouponStore;
  readonly prices: PriceStore;
}

export interface SignupRequest extends NewSubscription {
  readonly card: CardDetails;
}

export type SignupResult =
  | { readonly kind: "active"; readonly subscription: Subscription }
  /** The first charge's outcome is unknown; the attempt sweep settles it and the subscription follows. */
  | { readonly kind: "pending"; readonly subscription: Subscription }
  | { readonly kind: "refused"; readonly failure: Failure; readonly subscription_id: string }
  | InvalidInput
  | Conflict;

/**
 * Server-to-server sign-up: period 0 is charged at once with the card (non-ui payment), which also yields the token
 * (token billing) or registers the gateway-managed plan (recurring billing). The period-0 attempt is claimed before
 * the call like every charge, so an unknown outcome is settled by the attempt sweep, never by charging again.
 */
export async function signUpWithCard(
  order: SignupOrder<SignupRequest>,
  deps: SignupDeps,
): Promise<SignupResult> {
  const request = await withPrice(order, deps);
  if ("kind" in request) return request;
  const invalid = invalidCurrency(request.plan.currency, deps.policy.currencies);
  if (invalid) return invalid;
  const discounted = await withCoupon(request, deps);
  if ("kind" in discounted) return discounted;
  const taxed = withTaxRate(discounted, deps.policy.invoicing.tax_rates);
  const signup = await openSignup(taxed, deps.policy.inflightWindowMs, deps);
  if ("replayed" in signup) return replayedResult(await finishedReplay(signup, deps));
  const { subscription, attempt } = signup;
  const outcome = await deps.gateway.payWithCard({
    order_id: attempt.order_id,
    amount: attempt.amount,
    currency: attempt.currency,
    customer: request.customer,
    card: request.card,
    billing: request.billing,
    recurring: recurringRegistration(subscription, deps),
    item: lineItemOf(subscription, attempt),
  });
  return orBeingSettled(
    async (): Promise<SignupResult> => {
      switch (outcome.kind) {
        case "success": {
          const paid = { ...outcome.value, card_expiry: request.card.expiry };
          return { kind: "active", subscription: await recordFirstPayment(signup, paid, deps) };
        }
        case "unknown":
          await deps.repository.updateAttempt(attempt, {
            expect: { status: "pending", lease_until: attempt.lease_until },
            set: { status: "unknown", resmsg: outcome.reason, updated_at: deps.clock.now().toISOString() },
          });
          return { kind: "pending", subscription };
        default:
          // Refused: nothing was charged. The sign-up ends here, unless the gateway was unavailable and the caller can
          // repeat the request with its key.
          await recordRefusedSignup(
            signup,
            outcome,
            `signup_${outcome.kind}`,
            deps,
            outcome.kind === "unavailable" && request.request_key !== undefined,
          );
          return { kind: "refused", failure: outcome, subscription_id: subscription.subscription_id };
      }
    },
    () => ({ kind: "pending", subscription }),
  );
}

/**
 * The sign-up a retried request meets. Its first try was paid and recorded what the payment issued on the line, but
 * stopped before the subscription had it: the retry finishes it now rather than leaving it to the attempt sweep.
 */
async function finishedReplay({ replayed, line }: ReplayedSignup, deps: SignupDeps): Promise<Subscription> {
  if (replayed.status !== "pending" || line === undefined || !namesIssued(line)) return replayed;
  await finishPaidSignup(replayed, line, deps);
  return (await deps.repository.getSubscription(replayed.subscription_id)) ?? replayed;
}

/** What a retried sign-up answers: the state its first try reached (the attempt sweep settles a pending one). */
function replayedResult(subscription: Subscription): SignupResult {
  if (subscription.status === "pending") return { kind: "pending", subscription };
  if (subscription.status === "canceled" && subscription.period === 0) {
    const message = `sign-up refused (${subscription.status_reason ?? "refused"})`;
    return {
      kind: "refused",
      failure: { kind: "invalid", code: "SIGNUP_REFUSED", message },
      subscription_id: subscription.subscription_id,
    };
  }
  return { kind: "active", subscription };
}
