import { type OutboxEvent, outboxEventSchema } from "../../functions/core/base/events";
import type { ChargeAttempt, Subscription, SubscriptionStatus } from "../../functions/core/base/model";
import { monthlyCents, PAYING_STATUSES } from "../../functions/core/base/plan-price";
import {
  type SubscriptionView,
  subscriptionView,
  subscriptionViewSchema,
} from "../../functions/core/base/subscription-view";
import { movementTotals, netMovement } from "../../functions/core/reports/revenue";

// The chaos run's account of events (README, Events): what the bus received, held against what the ledger and the
// subscriptions say happened. Every fact must have reached the bus at least once (copies allowed, each with the
// same content under its event_id), and a consumer that folds a subscription's events in the order they arrived
// must end with the status stored here. Every event is placed (sequence, subscription): one sequence never carries
// two views, and a consumer that keeps the view of the highest sequence ends with the subscription as stored.

export interface EventAccount {
  /** Entries the bus received, copies included. */
  readonly published: number;
  /** Distinct event_ids among them. */
  readonly distinct: number;
  /** Entries that repeat an event_id already received (allowed: consumers de-duplicate). */
  readonly duplicates: number;
  /** Facts of the ledger or the subscriptions with no event on the bus (each a violation). */
  readonly lost: readonly string[];
  /** event_ids received with different contents (each a violation). */
  readonly inconsistent: readonly string[];
  /**
   * Violations of the events' order: an event without its place or with another subscription's view, one sequence
   * with two views, or a highest-sequenced view that differs from the stored subscription in what events announce.
   */
  readonly misordered: readonly string[];
  /** Events still in an outbox at the end (each a violation: delivery must have caught up). */
  readonly undelivered: number;
}

/** What a subscription's events, folded in arrival order, make of its status (active until told otherwise). */
const STATUS_EVENTS: Readonly<Record<string, SubscriptionStatus>> = {
  "subscription.past_due": "past_due",
  "subscription.canceled": "canceled",
  "subscription.reactivated": "active",
  "subscription.activated": "active",
  "subscription.trial_started": "trialing",
  "subscription.paused": "paused",
  "subscription.resumed": "active",
};

export function accountForEvents(input: {
  readonly details: readonly string[];
  readonly subscriptions: readonly Subscription[];
  readonly attempts: readonly ChargeAttempt[];
  readonly undelivered: number;
}): EventAccount {
  const byId = new Map<string, string>();
  const inconsistent: string[] = [];
  const events: OutboxEvent[] = [];
  for (const detail of input.details) {
    const event = outboxEventSchema.parse(JSON.parse(detail));
    const canonical = JSON.stringify(event);
    const seen = byId.get(event.event_id);
    if (seen === undefined) {
      byId.set(event.event_id, canonical);
      events.push(event);
    } else if (seen !== canonical)
      inconsistent.push(`${event.event_id} (${event.type}) differs between copies`);
  }
  return {
    published: input.details.length,
    distinct: byId.size,
    duplicates: input.details.length - byId.size,
    lost: [
      ...lostChargeEvents(events, input.attempts),
      ...lostStatusEvents(events, input.subscriptions),
      ...lostRevenueMovements(events, input.subscriptions),
    ],
    inconsistent,
    misordered: misorderedEvents(events, input.subscriptions),
    undelivered: input.undelivered,
  };
}

/** Each closed charge announces its outcome, and each chargeback its latest status. */
function lostChargeEvents(events: readonly OutboxEvent[], attempts: readonly ChargeAttempt[]): string[] {
  const announced = new Set(
    events.flatMap((event) => ("order_id" in event ? [`${event.type} ${event.order_id}`] : [])),
  );
  const chargebackStatuses = new Set(
    events.flatMap((event) =>
      event.type === "chargeback.received" || event.type === "chargeback.updated"
        ? [`${event.order_id} ${event.chargeback_status}`]
        : [],
    ),
  );
  const lost: string[] = [];
  for (const attempt of attempts) {
    const outcome = expectedChargeEvent(attempt);
    if (outcome !== undefined && !announced.has(`${outcome} ${attempt.order_id}`))
      lost.push(`${outcome} of ${attempt.order_id}`);
    if (attempt.dispute === undefined) continue;
    if (!announced.has(`chargeback.received ${attempt.order_id}`))
      lost.push(`chargeback.received of ${attempt.order_id}`);
    if (!chargebackStatuses.has(`${attempt.order_id} ${attempt.dispute.status}`))
      lost.push(`chargeback status ${attempt.dispute.status} of ${attempt.order_id}`);
  }
  return lost;
}

function expectedChargeEvent(attempt: ChargeAttempt): string | undefined {
  if (attempt.status === "succeeded") return "charge.succeeded";
  if (attempt.status === "declined" || attempt.status === "failed") return "charge.failed";
  return undefined;
}

/** A consumer's view of each subscription, from its status events in arrival order, must be the stored status. */
function lostStatusEvents(events: readonly OutboxEvent[], subscriptions: readonly Subscription[]): string[] {
  const seen = new Map<string, SubscriptionStatus>();
  for (const event of events) {
    // A sign-up's checkout that expired unpaid announces its cancel as checkout.expired alone.
    const status =
      event.type === "checkout.expired"
        ? event.purpose === "signup"
          ? "canceled"
          : undefined
        : STATUS_EVENTS[event.type];
    if (status !== undefined && "subscription_id" in event) seen.set(event.subscription_id, status);
  }
  return subscriptions.flatMap((subscription) => {
    const view = seen.get(subscription.subscription_id) ?? "active";
    return view === subscription.status
      ? []
      : [`${subscription.subscription_id}: ${subscription.status} here, ${view} from its events`];
  });
}

/**
 * A consumer that adds up the MRR movements of a subscription whose whole history it has (from subscription.created)
 * ends with its MRR as stored: no write moved it unannounced. Each movement is rounded to the minor unit, so each may
 * be off by half of one.
 */
function lostRevenueMovements(
  events: readonly OutboxEvent[],
  subscriptions: readonly Subscription[],
): string[] {
  const created = new Set(
    events.flatMap((event) => (event.type === "subscription.created" ? [event.subscription_id] : [])),
  );
  const bySubscription = new Map<string, OutboxEvent[]>();
  for (const event of events) {
    if (event.mrr_movements === undefined) continue;
    bySubscription.set(event.subscription_id, [...(bySubscription.get(event.subscription_id) ?? []), event]);
  }
  return subscriptions.flatMap((subscription) => {
    if (!created.has(subscription.subscription_id)) return [];
    const moved = bySubscription.get(subscription.subscription_id) ?? [];
    const totals = movementTotals(moved);
    const { plan } = subscription;
    const mrr = PAYING_STATUSES.has(subscription.status) ? monthlyCents(plan) / 100 : 0;
    const net = (currency: string) => netMovement(totals.get(currency) ?? new Map());
    const slack = 0.005 * (moved.length + 1);
    return [...new Set([plan.currency, ...totals.keys()])].flatMap((currency) => {
      const expected = currency === plan.currency ? mrr : 0;
      return Math.abs(net(currency) - expected) <= slack
        ? []
        : [
            `${subscription.subscription_id}: its MRR movements add up to ${net(currency).toFixed(2)} ${currency}, its MRR is ${expected.toFixed(2)}`,
          ];
    });
  });
}

/**
 * What the events announce of a subscription: its view without what a write may change unannounced (a dunning
 * retry's schedule and reason). In the schema's key order, whoever built the view.
 */
function announcedPart(view: SubscriptionView) {
  const {
    next_charge_at: _next,
    dunning: _dunning,
    status_reason: _reason,
    ...announced
  } = subscriptionViewSchema.parse(view);
  return JSON.stringify(announced);
}

function misorderedEvents(events: readonly OutboxEvent[], subscriptions: readonly Subscription[]): string[] {
  const misordered: string[] = [];
  const bySequence = new Map<string, { readonly view: string; readonly event_id: string }>();
  const highest = new Map<string, { readonly sequence: number; readonly view: SubscriptionView }>();
  for (const event of events) {
    const parsed = subscriptionViewSchema.safeParse(event.subscription);
    if (event.sequence === undefined || !parsed.success) {
      misordered.push(`${event.event_id} (${event.type}) has no sequence or subscription`);
      continue;
    }
    const { sequence } = event;
    const view = parsed.data;
    if (view.subscription_id !== event.subscription_id) {
      misordered.push(`${event.event_id} (${event.type}) carries ${view.subscription_id}'s view`);
      continue;
    }
    const key = `${event.subscription_id} ${sequence}`;
    const twin = bySequence.get(key);
    const canonical = JSON.stringify(view);
    if (twin === undefined) bySequence.set(key, { view: canonical, event_id: event.event_id });
    else if (twin.view !== canonical)
      misordered.push(`${event.event_id} and ${twin.event_id}: sequence ${sequence} with two views`);
    const top = highest.get(event.subscription_id);
    if (top === undefined || sequence > top.sequence) highest.set(event.subscription_id, { sequence, view });
  }
  for (const subscription of subscriptions) {
    const top = highest.get(subscription.subscription_id);
    if (top !== undefined && announcedPart(top.view) !== announcedPart(subscriptionView(subscription)))
      misordered.push(
        `${subscription.subscription_id}: the view of sequence ${top.sequence} is not the subscription as stored`,
      );
  }
  return misordered;
}
