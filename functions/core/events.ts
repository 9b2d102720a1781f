import * as z from "zod";
import type { ChargeAttempt } from "./model";

// The events a SaaS grants and revokes access by (README, Events). Each is written in the same conditional write as
// the state it announces (the item's outbox), then delivered to the bus at least once under its stable event_id.

const chargeFacts = {
  subscription_id: z.string(),
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

export const billingEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("charge.succeeded"), ...chargeFacts, transaction_id: z.string().optional() }),
  z.object({
    type: z.literal("charge.failed"),
    ...chargeFacts,
    reason: z.string(),
    rescode: z.string().optional(),
    /** The gateway's named reason (v2 errcode), when it gave one. */
    errcode: z.string().optional(),
  }),
  /** A sign-up's first payment went through: the subscription is active at period 1. */
  z.object({ type: z.literal("subscription.activated"), subscription_id: z.string() }),
  z.object({ type: z.literal("subscription.past_due"), subscription_id: z.string(), reason: z.string() }),
  z.object({ type: z.literal("subscription.canceled"), subscription_id: z.string(), reason: z.string() }),
  z.object({ type: z.literal("subscription.reactivated"), subscription_id: z.string() }),
  /** The gateway charged a successful charge back (CHARGEBACK webhook); the ledger line is marked disputed. */
  z.object({ type: z.literal("chargeback.received"), ...chargebackFacts }),
  /** A later status of the same chargeback (e.g. deducted or resolved). */
  z.object({ type: z.literal("chargeback.updated"), ...chargebackFacts, previous_status: z.string() }),
]);
export type BillingEvent = z.infer<typeof billingEventSchema>;

type ChargeEvent<T extends BillingEvent["type"]> = Extract<BillingEvent, { readonly type: T }>;

function chargeFactsOf(attempt: ChargeAttempt) {
  const { subscription_id, period, order_id, amount, currency } = attempt;
  return { subscription_id, period, attempt: attempt.attempt, order_id, amount, currency };
}

/** charge.succeeded of a succeeded attempt: written with the attempt's close. */
export function chargeSucceededEvent(attempt: ChargeAttempt): ChargeEvent<"charge.succeeded"> {
  return { type: "charge.succeeded", ...chargeFactsOf(attempt), transaction_id: attempt.transaction_id };
}

/** charge.failed of a declined attempt, or of one the gateway refused as invalid: written with its close. */
export function chargeFailedEvent(attempt: ChargeAttempt): ChargeEvent<"charge.failed"> {
  return {
    type: "charge.failed",
    ...chargeFactsOf(attempt),
    reason: attempt.status === "failed" ? "gateway_rejected_request" : "declined",
    rescode: attempt.rescode,
    errcode: attempt.errcode,
  };
}

/** The event a closed attempt announces with its close. */
export function closedChargeEvent(attempt: ChargeAttempt): BillingEvent {
  return attempt.status === "succeeded" ? chargeSucceededEvent(attempt) : chargeFailedEvent(attempt);
}

/** What the outbox adds to an event when it is written: the id consumers de-duplicate on, and when it happened. */
const eventEnvelopeSchema = z.object({ event_id: z.string().min(1), occurred_at: z.iso.datetime() });

/** An event as its outbox holds it and the bus carries it (the entry's detail). */
export const outboxEventSchema = z.intersection(billingEventSchema, eventEnvelopeSchema);
export type OutboxEvent = z.infer<typeof outboxEventSchema>;
