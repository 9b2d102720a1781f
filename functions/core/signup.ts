import type { Failure } from "../gateway/outcome";
import { billingPeriod } from "./billing-period";
import type { ChargePolicy } from "./charge-policy";
import type { BillingMode, ChargeAttempt, Customer, Plan, Subscription } from "./model";
import { orderIdFor } from "./order-id";
import type {
  BillingRepository,
  CardDetails,
  Clock,
  EventPublisher,
  IdSource,
  PaymentGateway,
} from "./ports";

export interface SignupDeps {
  readonly repository: BillingRepository;
  readonly gateway: PaymentGateway;
  readonly events: EventPublisher;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly policy: ChargePolicy;
  /** Where the gateway reports the charges of a gateway-managed plan (our recurring webhook for this subscription). */
  readonly recurringNotifyUrl: (subscriptionId: string) => string;
}

export interface SignupRequest {
  readonly customer: Customer;
  readonly plan: Plan;
  readonly billing: BillingMode;
  readonly card: CardDetails;
}

export type SignupResult =
  | { readonly kind: "active"; readonly subscription: Subscription }
  /** The first charge's outcome is unknown; the janitor settles it and the subscription follows. */
  | { readonly kind: "pending"; readonly subscription: Subscription }
  | { readonly kind: "refused"; readonly failure: Failure; readonly subscription_id: string };

const yyyymmdd = (date: Date) => date.toISOString().slice(0, 10).replaceAll("-", "");

/**
 * Server-to-server sign-up: period 0 is charged at once with the card (non-ui payment), which also yields the token
 * (token billing) or registers the gateway-managed plan (recurring billing). The period-0 attempt is claimed before
 * the call like every charge, so an unknown outcome is settled by the janitor, never by charging again.
 */
export async function signUpWithCard(request: SignupRequest, deps: SignupDeps): Promise<SignupResult> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const subscription_id = deps.ids.subscriptionId();
  const key = { subscription_id, period: 0, attempt: 0 };
  const pending: Subscription = {
    subscription_id,
    status: "pending",
    billing_mode: request.billing,
    customer: request.customer,
    plan: request.plan,
    anchor_at: at,
    period: 0,
    attempt: 0,
    created_at: at,
    updated_at: at,
  };
  const attempt: ChargeAttempt = {
    ...key,
    order_id: orderIdFor(key),
    amount: request.plan.amount,
    currency: request.plan.currency,
    status: "pending",
    lease_until: new Date(now.getTime() + deps.policy.inflightWindowMs).toISOString(),
    created_at: at,
    updated_at: at,
  };
  if (!(await deps.repository.createSubscription(pending))) throw new Error("subscription id collision");
  await deps.repository.claimAttempt(attempt);

  const secondPeriod = billingPeriod(now, request.plan.interval_months, 1).start;
  const outcome = await deps.gateway.payWithCard({
    order_id: attempt.order_id,
    amount: attempt.amount,
    currency: attempt.currency,
    customer: request.customer,
    card: request.card,
    billing: request.billing,
    recurring:
      request.billing === "recurring"
        ? {
            amount: request.plan.amount,
            interval_months: request.plan.interval_months,
            first_recurring_date: yyyymmdd(secondPeriod),
            notify_url: deps.recurringNotifyUrl(subscription_id),
          }
        : undefined,
  });

  const expectOpen = { status: "pending" as const, lease_until: attempt.lease_until };
  switch (outcome.kind) {
    case "success": {
      const { transaction_id, token_id, recurring_id, card } = outcome.value;
      if (token_id !== undefined && card !== undefined) {
        await deps.repository.putToken({
          token_id,
          subscription_id,
          card,
          expiry: request.card.expiry,
          status: "active",
          created_at: at,
          updated_at: at,
        });
      }
      await deps.repository.updateAttempt(attempt, {
        expect: expectOpen,
        set: { status: "succeeded", transaction_id, rescode: "0000", updated_at: at },
        remove: ["lease_until"],
      });
      const set = {
        status: "active" as const,
        period: 1,
        token_id,
        card,
        recurring_id,
        // Token billing: our charge run bills period 1. Gateway recurring: the gateway does, and tells us.
        next_charge_at: request.billing === "token" ? secondPeriod.toISOString() : undefined,
        updated_at: at,
      };
      await deps.repository.updateSubscription(subscription_id, {
        expect: { period: 0, status: "pending" },
        set,
      });
      await deps.events.publish([
        {
          type: "charge.succeeded",
          ...key,
          order_id: attempt.order_id,
          amount: attempt.amount,
          currency: attempt.currency,
          transaction_id,
        },
      ]);
      return { kind: "active", subscription: { ...pending, ...set } };
    }
    case "unknown":
      await deps.repository.updateAttempt(attempt, {
        expect: expectOpen,
        set: { status: "unknown", resmsg: outcome.reason, updated_at: at },
      });
      return { kind: "pending", subscription: pending };
    default: {
      // Refused: nothing was charged. The sign-up ends here; the customer may try again (a new subscription).
      const rescode = outcome.kind === "unavailable" ? undefined : outcome.code;
      const resmsg = outcome.kind === "unavailable" ? outcome.reason : outcome.message;
      await deps.repository.updateAttempt(attempt, {
        expect: expectOpen,
        set: {
          status: outcome.kind === "declined" ? "declined" : outcome.kind === "invalid" ? "failed" : "voided",
          rescode,
          resmsg,
          updated_at: at,
        },
        remove: ["lease_until"],
      });
      await deps.repository.updateSubscription(subscription_id, {
        expect: { period: 0, status: "pending" },
        set: { status: "canceled", status_reason: `signup_${outcome.kind}`, updated_at: at },
      });
      return { kind: "refused", failure: outcome, subscription_id };
    }
  }
}
