import * as z from "zod";
import {
  type ChargeAttempt,
  declineReasonSchema,
  nextStepOf,
  type RefundRecord,
  type Subscription,
} from "./model";

// The events a SaaS grants and revokes access by (README, Events). Each is written in the same conditional write as
// the state it announces (the item's outbox), then delivered to the bus at least once under its stable event_id.

/** Whom an event is about: the subscription, with the SaaS's own customer id and metadata (when it has them). */
const subject = {
  subscription_id: z.string(),
  external_id: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
};

const chargeFacts = {
  ...subject,
  period: z.number().int(),
  attempt: z.number().int(),
  order_id: z.string(),
  amount: z.string(),
  currency: z.string(),
};

const chargebackFacts = {
  ...chargeFacts,
  transaction_id: z.string().optional(),
  chargeback_id: z.string().optional(),
  /** The chargeback's status after this webhook: the furthest one reported. */
  chargeback_status: z.string(),
  reason: z.string().optional(),
};

const refundFacts = {
  ...subject,
  refund_id: z.string(),
  /** The charge refunded. */
  order_id: z.string(),
  period: z.number().int(),
  attempt: z.number().int(),
  amount: z.string(),
  currency: z.string(),
  reason: z.string(),
};

export const billingEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("charge.succeeded"), ...chargeFacts, transaction_id: z.string().optional() }),
  z.object({
    type: z.literal("charge.failed"),
    ...chargeFacts,
    reason: z.string(),
    rescode: z.string().optional(),
    /** The gateway's named reason (v2 errcode), when it gave one. */
    errcode: z.string().optional(),
    /** A decline's reason in the customer's terms, and what can be done about it. */
    decline_reason: declineReasonSchema.optional(),
    next_step: z.enum(["retry_later", "new_card", "authentication"]).optional(),
  }),
  /** A sign-up began: the subscription exists, pending its first payment. */
  z.object({
    type: z.literal("subscription.created"),
    ...subject,
    billing: z.string(),
    plan: z.object({ amount: z.string(), currency: z.string(), interval_months: z.number().int() }),
  }),
  /** A sign-up with a trial had its card verified: nothing is charged until `trial_end`. */
  z.object({ type: z.literal("subscription.trial_started"), ...subject, trial_end: z.string() }),
  /** A sign-up's first payment (or its first period after a trial) went through: the subscription is active. */
  z.object({ type: z.literal("subscription.activated"), ...subject }),
  z.object({ type: z.literal("subscription.past_due"), ...subject, reason: z.string() }),
  z.object({ type: z.literal("subscription.canceled"), ...subject, reason: z.string() }),
  z.object({ type: z.literal("subscription.reactivated"), ...subject }),
  /** No charges until resumed; `resume_at` when it resumes by itself. */
  z.object({ type: z.literal("subscription.paused"), ...subject, resume_at: z.string().optional() }),
  /** Charging again from `next_charge_at` (now, when the paid period ended during the pause). */
  z.object({ type: z.literal("subscription.resumed"), ...subject, next_charge_at: z.string() }),
  /** A cancel at the end of the paid period: access runs until `cancel_at`, then subscription.canceled follows. */
  z.object({ type: z.literal("subscription.cancel_scheduled"), ...subject, cancel_at: z.string() }),
  /**
   * The plan, a plan change scheduled for the next renewal, the customer's external_id, the metadata or a scheduled
   * cancel changed (`changed` names which).
   */
  z.object({
    type: z.literal("subscription.updated"),
    ...subject,
    changed: z.array(z.enum(["plan", "scheduled_plan", "external_id", "metadata", "cancel_at"])),
  }),
  /**
   * The card the subscription is charged on was replaced: a new token (the old one deleted at the gateway), or a new
   * gateway-managed plan (the old one deleted there).
   */
  z.object({
    type: z.literal("payment_method.updated"),
    ...subject,
    /** The new card, masked (absent when the gateway's answer named none). */
    card: z.object({ first4: z.string(), last4: z.string() }).optional(),
  }),
  /** A refund of a charge went through at the gateway (the charge's refunded amount includes it). */
  z.object({
    type: z.literal("refund.succeeded"),
    ...refundFacts,
    refund_transaction_id: z.string().optional(),
  }),
  /** The gateway refused a refund: nothing was refunded. */
  z.object({ type: z.literal("refund.failed"), ...refundFacts, rescode: z.string().optional() }),
  /** The gateway charged a successful charge back (CHARGEBACK webhook); the ledger line is marked disputed. */
  z.object({ type: z.literal("chargeback.received"), ...chargebackFacts }),
  /** A later status of the same chargeback (e.g. deducted or resolved). */
  z.object({ type: z.literal("chargeback.updated"), ...chargebackFacts, previous_status: z.string() }),
]);
export type BillingEvent = z.infer<typeof billingEventSchema>;

type ChargeEvent<T extends BillingEvent["type"]> = Extract<BillingEvent, { readonly type: T }>;

/** An event's subject fields from the subscription it is about. */
export function subjectOf(subscription: Subscription) {
  return {
    subscription_id: subscription.subscription_id,
    external_id: subscription.customer.external_id,
    metadata: subscription.metadata,
  };
}

/** The facts of a charge that every charge and chargeback event carries. */
export function chargeFactsOf(attempt: ChargeAttempt, subscription: Subscription) {
  const { period, order_id, amount, currency } = attempt;
  return { ...subjectOf(subscription), period, attempt: attempt.attempt, order_id, amount, currency };
}

/** charge.succeeded of a succeeded attempt: written with the attempt's close. */
export function chargeSucceededEvent(
  attempt: ChargeAttempt,
  subscription: Subscription,
): ChargeEvent<"charge.succeeded"> {
  return {
    type: "charge.succeeded",
    ...chargeFactsOf(attempt, subscription),
    transaction_id: attempt.transaction_id,
  };
}

/** charge.failed of a declined attempt, or of one the gateway refused as invalid: written with its close. */
export function chargeFailedEvent(
  attempt: ChargeAttempt,
  subscription: Subscription,
): ChargeEvent<"charge.failed"> {
  return {
    type: "charge.failed",
    ...chargeFactsOf(attempt, subscription),
    reason: attempt.status === "failed" ? "gateway_rejected_request" : "declined",
    rescode: attempt.rescode,
    errcode: attempt.errcode,
    ...(attempt.decline_reason === undefined
      ? {}
      : { decline_reason: attempt.decline_reason, next_step: nextStepOf(attempt.decline_reason) }),
  };
}

/** The event a closed attempt of `subscription` announces with its close. */
export function closedChargeEvent(attempt: ChargeAttempt, subscription: Subscription): BillingEvent {
  return attempt.status === "succeeded"
    ? chargeSucceededEvent(attempt, subscription)
    : chargeFailedEvent(attempt, subscription);
}

/** refund.succeeded or refund.failed of a refund record as it closes: written with its close. */
export function closedRefundEvent(
  refund: RefundRecord,
  subscription: Subscription | undefined,
): BillingEvent {
  const { refund_id, order_id, period, attempt, amount, currency, reason } = refund;
  const facts = {
    ...(subscription === undefined ? { subscription_id: refund.subscription_id } : subjectOf(subscription)),
    refund_id,
    order_id,
    period,
    attempt,
    amount,
    currency,
    reason,
  };
  return refund.status === "succeeded"
    ? { type: "refund.succeeded", ...facts, refund_transaction_id: refund.refund_transaction_id }
    : { type: "refund.failed", ...facts, rescode: refund.rescode };
}

/** What the outbox adds to an event when it is written: the id consumers de-duplicate on, and when it happened. */
const eventEnvelopeSchema = z.object({ event_id: z.string().min(1), occurred_at: z.iso.datetime() });

/** An event as its outbox holds it and the bus carries it (the entry's detail). */
export const outboxEventSchema = z.intersection(billingEventSchema, eventEnvelopeSchema);
export type OutboxEvent = z.infer<typeof outboxEventSchema>;
