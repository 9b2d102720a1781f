import * as z from "zod";
import { lazySchema, lazyShape } from "../../shared/lazy-schema";
import type { CreditNote, Invoice } from "./documents";
import {
  type ChargeAttempt,
  declineReasonSchema,
  nextStepOf,
  type RefundRecord,
  type Subscription,
} from "./model";
import { roundedAmount } from "./money";
import { monthlyCents, PAYING_STATUSES } from "./plan-price";
import { nextStepSchema, subscriptionView, subscriptionViewSchema } from "./subscription-view";

// The events a SaaS grants and revokes access by (README, Events). Each is written in the same conditional write as
// the state it announces (the item's outbox), then delivered to the bus at least once under its stable event_id.
// Every event carries `sequence` and `subscription` (README, Events: order), so a consumer can tell a stale one.

/** Whom an event is about: the subscription, with the SaaS's own customer id and metadata (when it has them). */
const subject = lazyShape(() => ({
  subscription_id: z.string(),
  external_id: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
}));

const chargeFacts = lazyShape(() => ({
  ...subject(),
  period: z.number().int(),
  attempt: z.number().int(),
  order_id: z.string(),
  amount: z.string(),
  currency: z.string(),
}));

const chargebackFacts = lazyShape(() => ({
  ...chargeFacts(),
  transaction_id: z.string().optional(),
  chargeback_id: z.string().optional(),
  /** The chargeback's status after this webhook: the furthest one reported. */
  chargeback_status: z.string(),
  reason: z.string().optional(),
}));

const refundFacts = lazyShape(() => ({
  ...subject(),
  refund_id: z.string(),
  /** The charge refunded. */
  order_id: z.string(),
  period: z.number().int(),
  attempt: z.number().int(),
  amount: z.string(),
  currency: z.string(),
  reason: z.string(),
}));

/** What each type of event says, before it is placed among its subscription's events. */
export const eventFactsSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("charge.succeeded"),
      ...chargeFacts(),
      transaction_id: z.string().optional(),
    }),
    z.object({
      type: z.literal("charge.failed"),
      ...chargeFacts(),
      reason: z.string(),
      rescode: z.string().optional(),
      /** The gateway's named reason (v2 errcode), when it gave one. */
      errcode: z.string().optional(),
      /** A decline's reason in the customer's terms, and what can be done about it. */
      decline_reason: declineReasonSchema.optional(),
      next_step: nextStepSchema.optional(),
    }),
    /** A sign-up began: the subscription exists, pending its first payment. */
    z.object({
      type: z.literal("subscription.created"),
      ...subject(),
      billing: z.string(),
      plan: z.object({ amount: z.string(), currency: z.string(), interval_months: z.number().int() }),
    }),
    /** A sign-up with a trial had its card verified: nothing is charged until `trial_end`. */
    z.object({ type: z.literal("subscription.trial_started"), ...subject(), trial_end: z.string() }),
    /** A sign-up's first payment (or its first period after a trial) went through: the subscription is active. */
    z.object({ type: z.literal("subscription.activated"), ...subject() }),
    z.object({ type: z.literal("subscription.past_due"), ...subject(), reason: z.string() }),
    z.object({ type: z.literal("subscription.canceled"), ...subject(), reason: z.string() }),
    z.object({ type: z.literal("subscription.reactivated"), ...subject() }),
    /** No charges until resumed; `resume_at` when it resumes by itself. */
    z.object({ type: z.literal("subscription.paused"), ...subject(), resume_at: z.string().optional() }),
    /** Charging again from `next_charge_at` (now, when the paid period ended during the pause). */
    z.object({ type: z.literal("subscription.resumed"), ...subject(), next_charge_at: z.string() }),
    /** A cancel at the end of the paid period: access runs until `cancel_at`, then subscription.canceled follows. */
    z.object({ type: z.literal("subscription.cancel_scheduled"), ...subject(), cancel_at: z.string() }),
    /**
     * The plan, its seats (`quantity`), a plan change scheduled for the next renewal, the customer's external_id, the
     * metadata, a scheduled cancel, the paid period (`current_period`: a renewal was paid) or the discount (a coupon
     * applied, removed, or ended after its last charge) changed (`changed` names which).
     */
    z.object({
      type: z.literal("subscription.updated"),
      ...subject(),
      changed: z.array(
        z.enum([
          "plan",
          "quantity",
          "scheduled_plan",
          "external_id",
          "metadata",
          "cancel_at",
          "current_period",
          "discount",
        ]),
      ),
    }),
    /**
     * The card the subscription is charged on was replaced: a new token (the old one deleted at the gateway), or a new
     * gateway-managed plan (the old one deleted there).
     */
    z.object({
      type: z.literal("payment_method.updated"),
      ...subject(),
      /** The new card, masked (absent when the gateway's answer named none). */
      card: z.object({ first4: z.string(), last4: z.string() }).optional(),
    }),
    /**
     * A payment window was not completed before it expired (README, Hosted checkout): nothing was charged, and a payment
     * made after `expires_at` is refunded. `signup`: a checkout, whose subscription is now canceled (checkout_expired)
     * — it never started, so this is its only event after subscription.created; `payment_method`: a new card's window
     * (its `order_id`), the card on file unchanged.
     */
    z.object({
      type: z.literal("checkout.expired"),
      ...subject(),
      purpose: z.enum(["signup", "payment_method"]),
      order_id: z.string().optional(),
      expires_at: z.string(),
    }),
    /** A refund of a charge went through at the gateway (the charge's refunded amount includes it). */
    z.object({
      type: z.literal("refund.succeeded"),
      ...refundFacts(),
      refund_transaction_id: z.string().optional(),
    }),
    /** The gateway refused a refund: nothing was refunded. */
    z.object({ type: z.literal("refund.failed"), ...refundFacts(), rescode: z.string().optional() }),
    /** The gateway charged a successful charge back (CHARGEBACK webhook); the ledger line is marked disputed. */
    z.object({ type: z.literal("chargeback.received"), ...chargebackFacts() }),
    /** A later status of the same chargeback (e.g. deducted or resolved). */
    z.object({ type: z.literal("chargeback.updated"), ...chargebackFacts(), previous_status: z.string() }),
    /** A paid charge was finalized as an invoice (README, Invoices): GET /v1/invoices/{invoice_number} has it all. */
    z.object({
      type: z.literal("invoice.finalized"),
      ...subject(),
      invoice_number: z.string(),
      order_id: z.string(),
      total: z.string(),
      currency: z.string(),
      issue_date: z.string(),
    }),
    /** A succeeded refund was recorded as a credit note against the charge's invoice. */
    z.object({
      type: z.literal("credit_note.created"),
      ...subject(),
      credit_note_number: z.string(),
      invoice_number: z.string().optional(),
      refund_id: z.string(),
      total: z.string(),
      currency: z.string(),
      issue_date: z.string(),
    }),
  ]),
);
export type EventFacts = z.infer<typeof eventFactsSchema>;

/**
 * Where an event stands among all the events of its subscription, and the subscription as it stands there: the view
 * the merchant API answers with. A consumer keeps the view of the highest sequence it has seen.
 */
const placeShape = lazyShape(() => ({
  sequence: z.number().int().min(0),
  subscription: subscriptionViewSchema,
}));

/**
 * How a write moved its subscription's monthly recurring revenue (README, Revenue report), per currency: `new` from a
 * subscription that never paid (its sign-up or trial converting), `expansion` more (seats, a dearer plan, a resume or
 * reactivation), `contraction` less from one that stays (fewer seats, a cheaper plan, a pause), `churned` the MRR it
 * paid until it was canceled.
 */
export const revenueMovementSchema = lazySchema(() =>
  z.object({
    kind: z.enum(["new", "expansion", "contraction", "churned"]),
    currency: z.string(),
    /** Monthly, at list price, rounded to the currency's minor unit. */
    amount: z.string(),
  }),
);
export type RevenueMovement = z.infer<typeof revenueMovementSchema>;

/** The statuses a subscription has before it ever paid: one that starts paying from them is new revenue. */
const NEVER_PAID: ReadonlySet<string> = new Set(["pending", "trialing"]);

type RevenueState = Pick<Subscription, "status" | "plan">;

const mrrCents = (state: RevenueState, currency: string): number =>
  PAYING_STATUSES.has(state.status) && state.plan.currency === currency ? monthlyCents(state.plan) : 0;

/** How a subscription's MRR moved from `before` to `after` (none when it did not, or by less than a minor unit). */
export function revenueMovements(before: RevenueState, after: RevenueState): RevenueMovement[] {
  const movements: RevenueMovement[] = [];
  for (const currency of new Set([before.plan.currency, after.plan.currency])) {
    const was = mrrCents(before, currency);
    const is = mrrCents(after, currency);
    if (is === was) continue;
    const kind =
      was === 0
        ? NEVER_PAID.has(before.status)
          ? "new"
          : "expansion"
        : is === 0
          ? after.status === "canceled"
            ? "churned"
            : "contraction"
          : is > was
            ? "expansion"
            : "contraction";
    const amount = roundedAmount(Math.abs(is - was), currency);
    if (Number(amount) > 0) movements.push({ kind, currency, amount });
  }
  return movements;
}

export const billingEventSchema = lazySchema(() =>
  z.intersection(
    eventFactsSchema,
    z.object({ ...placeShape(), mrr_movements: z.array(revenueMovementSchema).optional() }),
  ),
);
export type BillingEvent = z.infer<typeof billingEventSchema>;

type ChargeEvent<T extends EventFacts["type"]> = Extract<EventFacts, { readonly type: T }>;

/**
 * Each revision of a subscription owns a block of sequence numbers: first the events of the write that made it, then
 * the charge events (a ledger line's, written with the line, not the subscription) decided on it while it stood.
 */
const SEQUENCE_BLOCK = 1000;
const CHARGE_EVENTS_AT = 500;

/**
 * The events a subscription's write announces, placed at the start of the revision it writes: `after`'s. The first
 * carries how the write moved the subscription's MRR from `before` (a transition's subscription as read).
 */
export function placedByWrite(
  after: Subscription,
  facts: readonly EventFacts[],
  before?: Subscription,
): BillingEvent[] {
  const view = subscriptionView(after);
  const first = (after.revision ?? 0) * SEQUENCE_BLOCK;
  const movements = before === undefined ? [] : revenueMovements(before, after);
  return facts.map((event, index) => ({
    ...event,
    sequence: first + index,
    subscription: view,
    ...(index === 0 && movements.length > 0 ? { mrr_movements: movements } : {}),
  }));
}

/**
 * A charge event, placed in the block of the subscription revision it was decided on (as read), after that revision's
 * own events and before any later write's: a charge's later change (`step`: a refund, a chargeback's next status)
 * after its close. Two charges' events placed on one revision may share a sequence; they carry the same view.
 */
export function placedOnCharge(subscription: Subscription, event: EventFacts, step = 0): BillingEvent {
  const sequence = (subscription.revision ?? 0) * SEQUENCE_BLOCK + CHARGE_EVENTS_AT + step;
  return { ...event, sequence, subscription: subscriptionView(subscription) };
}

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

/** charge.failed of a declined attempt, or of one the gateway refused as invalid. */
function chargeFailedFacts(attempt: ChargeAttempt, subscription: Subscription): ChargeEvent<"charge.failed"> {
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

/**
 * The event a closed attempt announces with its close (charge.succeeded or charge.failed), placed on `subscription`
 * as the charge was decided on it.
 */
export function closedChargeEvent(attempt: ChargeAttempt, subscription: Subscription): BillingEvent {
  return placedOnCharge(
    subscription,
    attempt.status === "succeeded"
      ? {
          type: "charge.succeeded",
          ...chargeFactsOf(attempt, subscription),
          transaction_id: attempt.transaction_id,
        }
      : chargeFailedFacts(attempt, subscription),
  );
}

/** checkout.expired of a new card's window whose line closes unpaid, placed like the line's other events. */
export function expiredWindowEvent(line: ChargeAttempt, subscription: Subscription): BillingEvent {
  return placedOnCharge(subscription, {
    type: "checkout.expired",
    ...subjectOf(subscription),
    purpose: "payment_method",
    order_id: line.order_id,
    expires_at: line.window?.expires_at ?? line.lease_until ?? line.updated_at,
  });
}

/** refund.succeeded or refund.failed of a refund record as it closes, after its charge's close: written with it. */
export function closedRefundEvent(refund: RefundRecord, subscription: Subscription): BillingEvent {
  const { refund_id, order_id, period, attempt, amount, currency, reason } = refund;
  const facts = {
    ...subjectOf(subscription),
    refund_id,
    order_id,
    period,
    attempt,
    amount,
    currency,
    reason,
  };
  return placedOnCharge(
    subscription,
    refund.status === "succeeded"
      ? { type: "refund.succeeded", ...facts, refund_transaction_id: refund.refund_transaction_id }
      : { type: "refund.failed", ...facts, rescode: refund.rescode },
    1,
  );
}

/** invoice.finalized, written with the close of the paid line it was finalized from, after charge.succeeded. */
export function finalizedInvoiceEvent(invoice: Invoice, subscription: Subscription): BillingEvent {
  const { number, order_id, total, currency, issue_date } = invoice;
  return placedOnCharge(
    subscription,
    {
      type: "invoice.finalized",
      ...subjectOf(subscription),
      invoice_number: number,
      order_id,
      total,
      currency,
      issue_date,
    },
    1,
  );
}

/** credit_note.created, written with the close of the succeeded refund, after refund.succeeded. */
export function createdCreditNoteEvent(note: CreditNote, subscription: Subscription): BillingEvent {
  const { number, invoice_number, refund_id, total, currency, issue_date } = note;
  return placedOnCharge(
    subscription,
    {
      type: "credit_note.created",
      ...subjectOf(subscription),
      credit_note_number: number,
      invoice_number,
      refund_id,
      total,
      currency,
      issue_date,
    },
    2,
  );
}

/** What the outbox adds to an event when it is written: the id consumers de-duplicate on, and when it happened. */
const eventEnvelopeSchema = lazySchema(() =>
  z.object({
    event_id: z.string().min(1),
    occurred_at: z.iso.datetime(),
    // Read as stored: an event written before events were placed has neither, and a view written then may lack fields.
    sequence: placeShape().sequence.optional(),
    subscription: z.record(z.string(), z.unknown()).optional(),
    mrr_movements: z.array(revenueMovementSchema).optional(),
  }),
);

/** An event as its outbox holds it and the bus carries it (the entry's detail). */
export const outboxEventSchema = lazySchema(() => z.intersection(eventFactsSchema, eventEnvelopeSchema));
export type OutboxEvent = z.infer<typeof outboxEventSchema>;
