import { outboxEventSchema } from "../../functions/core/base/events";
import { ALL_EVENT_TYPES, type WebhookDelivery } from "../../functions/core/ports/webhook-ports";

// The chaos run's account of our webhooks (README, Webhooks): receivers on loopback, registered as endpoints through
// the merchant API, answer 500/503 and hang past the sender's timeout at random; yet every event on the bus must reach
// every endpoint subscribed to its type — accepted (answered 2xx) at least once, copies allowed and counted — signed
// with that endpoint's secret, and no delivery may be left waiting for a retry, failed, or on the queue or its DLQ.

/** What one receiver saw (local/chaos/webhook-receivers.ts keeps it). */
export interface ReceiverLog {
  readonly name: string;
  /** How it answers, for the table ("30 % answered 500/503"). */
  readonly behaviour: string;
  readonly endpointId: string;
  /** The event types its endpoint is subscribed to (["*"]: all). */
  readonly events: readonly string[];
  /** POSTs received. */
  readonly requests: number;
  /** Each event it accepted (answered 2xx), by event_id: its type and how many times. */
  readonly accepted: ReadonlyMap<string, { readonly type: string; readonly times: number }>;
  /** Answered 500 or 503 on purpose. */
  readonly refused: number;
  /** Held without an answer until the sender gave up. */
  readonly timedOut: number;
  /** Refused because the signature's time was more than the tolerance from the receiver's clock. */
  readonly stale: number;
  /** Requests whose signature did not verify, or whose headers did not name the body's event. */
  readonly bad: readonly string[];
}

export interface WebhookEndpointAccount {
  readonly name: string;
  readonly behaviour: string;
  /** "all" or the types it is subscribed to. */
  readonly events: string;
  /** Distinct events on the bus of its types: each must have been accepted. */
  readonly owed: number;
  /** Delivery records: one per bus entry of its types (an event the bus received twice is delivered twice). */
  readonly deliveries: number;
  /** Attempts after a delivery's first. */
  readonly retries: number;
  readonly requests: number;
  readonly refused: number;
  readonly timedOut: number;
  readonly stale: number;
  /** Acceptances of an event_id already accepted (allowed: consumers de-duplicate). */
  readonly copies: number;
}

export interface WebhookAccount {
  readonly endpoints: readonly WebhookEndpointAccount[];
  /** Events an endpoint is subscribed to and never accepted, and fan-outs the bus gave up on (each a violation). */
  readonly lost: readonly string[];
  /** Bad signatures, headers unlike the body, events of a type the endpoint is not subscribed to (each a violation). */
  readonly bad: readonly string[];
  /**
   * Deliveries left retrying or failed, bus entries without their delivery (or deliveries without an entry), and
   * messages left on the delivery queue or in its DLQ (each a violation).
   */
  readonly unsettled: readonly string[];
}

export function accountForWebhooks(input: {
  /** The bus entries' details, copies included. */
  readonly details: readonly string[];
  readonly receivers: readonly ReceiverLog[];
  /** Every delivery record of the endpoints. */
  readonly deliveries: readonly WebhookDelivery[];
  /** Messages still on the delivery queue (visible, in flight or waiting for a retry). */
  readonly queued: number;
  /** Messages in the delivery queue's DLQ. */
  readonly deadLetters: number;
  /** event_ids whose fan-out (queue-webhooks) the bus gave up on. */
  readonly fanOutsGivenUp: readonly string[];
}): WebhookAccount {
  const entries = input.details.map((detail) => outboxEventSchema.parse(JSON.parse(detail)));
  const distinct = new Map(entries.map((event) => [event.event_id, event]));
  const lost = input.fanOutsGivenUp.map((id) => `event ${id}: the bus gave up queueing its webhooks`);
  const bad: string[] = [];
  const unsettled: string[] = [];
  if (input.queued > 0) unsettled.push(`${input.queued} message(s) left on the delivery queue`);
  if (input.deadLetters > 0) unsettled.push(`${input.deadLetters} message(s) in the delivery queue's DLQ`);
  const endpoints = input.receivers.map((receiver): WebhookEndpointAccount => {
    const { name } = receiver;
    const subscribed = (type: string) =>
      receiver.events.includes(ALL_EVENT_TYPES) || receiver.events.includes(type);
    const owed = [...distinct.values()].filter((event) => subscribed(event.type));
    for (const event of owed)
      if (!receiver.accepted.has(event.event_id))
        lost.push(`${name}: ${event.type} ${event.event_id} never accepted`);
    bad.push(...receiver.bad.map((line) => `${name}: ${line}`));
    for (const [id, { type }] of receiver.accepted)
      if (!subscribed(type)) bad.push(`${name}: ${type} ${id} sent, not subscribed to`);
    const deliveries = input.deliveries.filter((delivery) => delivery.endpoint_id === receiver.endpointId);
    for (const delivery of deliveries.filter((found) => found.status !== "delivered"))
      unsettled.push(
        `${name}: delivery ${delivery.delivery_id} of ${delivery.event_type} ${delivery.event_id} ` +
          `${delivery.status} after ${delivery.attempts} attempt(s)` +
          ` (last: ${delivery.last_status ?? delivery.last_error ?? "none"})`,
      );
    const entriesOfItsTypes = entries.filter((event) => subscribed(event.type)).length;
    if (deliveries.length !== entriesOfItsTypes)
      unsettled.push(
        `${name}: ${deliveries.length} deliveries recorded for ${entriesOfItsTypes} bus entries of its types`,
      );
    const attempts = deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0);
    const accepted = [...receiver.accepted.values()];
    return {
      name,
      behaviour: receiver.behaviour,
      events: receiver.events.includes(ALL_EVENT_TYPES) ? "all" : receiver.events.join(", "),
      owed: owed.length,
      deliveries: deliveries.length,
      retries: Math.max(0, attempts - deliveries.length),
      requests: receiver.requests,
      refused: receiver.refused,
      timedOut: receiver.timedOut,
      stale: receiver.stale,
      copies: accepted.reduce((sum, { times }) => sum + times - 1, 0),
    };
  });
  return { endpoints, lost, bad, unsettled };
}
