import type * as z from "zod";
import type { OutboxEvent } from "../base/events";
import { done, retry, type WorkResult } from "../base/work-result";
import type { Clock, IdSource } from "../ports/clock";
import {
  ALL_EVENT_TYPES,
  MAX_WEBHOOK_ENDPOINTS,
  type WebhookDelivery,
  type WebhookDeliveryMessage,
  type WebhookEndpoint,
  type WebhookQueue,
  type WebhookStore,
  type WebhookTransport,
  type webhookEventTypeSchema,
} from "../ports/webhook-ports";

// Signed webhooks to the SaaS (README, Webhooks): the merchant registers endpoints; every billing event on the bus is
// queued once per subscribed endpoint, then POSTed, signed, until the endpoint answers 2xx — retried with a doubling
// backoff for three days from the first attempt, then marked failed. Each delivery's state is kept for the merchant
// to read. The signature, the HTTP and the address checks are the poster's (an adapter); this module decides.

/** The first retry waits this long; each next one twice as long as the one before, up to the cap. */
export const WEBHOOK_RETRY_BASE_SECONDS = 60;
/** Under SQS's 12-hour visibility limit, so each wait is one ChangeMessageVisibility. */
export const WEBHOOK_RETRY_MAX_SECONDS = 6 * 3600;
/** Retries go on this long after the first attempt; then the delivery is failed. */
export const WEBHOOK_RETRY_WINDOW_MS = 3 * 86_400_000;
/** Deliveries the deliveries route shows, newest first. */
export const WEBHOOK_DELIVERY_LIST_LIMIT = 50;

export interface WebhookEndpointDeps {
  readonly store: WebhookStore;
  readonly transport: Pick<WebhookTransport, "refusalOf">;
  readonly ids: Pick<IdSource, "webhookEndpointId" | "webhookEndpointIdFor" | "webhookSecret">;
  readonly clock: Clock;
}

export interface NewWebhookEndpoint {
  readonly url: string;
  readonly events: readonly z.infer<typeof webhookEventTypeSchema>[];
  readonly description?: string;
}

export type EndpointCreation =
  | { readonly kind: "created"; readonly endpoint: WebhookEndpoint }
  | { readonly kind: "invalid_input"; readonly field: string; readonly message: string }
  | { readonly kind: "full" };

/**
 * Registers an endpoint: its URL checked (scheme, the addresses its host resolves to), then written in a free slot.
 * A request carrying an idempotency key names its endpoint by the key, so a retry after a crash finds it.
 */
export async function createWebhookEndpoint(
  request: NewWebhookEndpoint,
  requestKey: string | undefined,
  deps: WebhookEndpointDeps,
): Promise<EndpointCreation> {
  const endpointId =
    requestKey === undefined ? deps.ids.webhookEndpointId() : deps.ids.webhookEndpointIdFor(requestKey);
  const existing = await deps.store.listEndpoints();
  const same = existing.find((endpoint) => endpoint.endpoint_id === endpointId);
  if (same !== undefined) return { kind: "created", endpoint: same };
  const refusal = await deps.transport.refusalOf(request.url);
  if (refusal !== undefined) return { kind: "invalid_input", field: "url", message: refusal };
  const events: WebhookEndpoint["events"] = request.events.includes(ALL_EVENT_TYPES)
    ? [ALL_EVENT_TYPES]
    : [...new Set(request.events)];
  const fields = {
    endpoint_id: endpointId,
    url: request.url,
    events,
    ...(request.description === undefined ? {} : { description: request.description }),
    secret: deps.ids.webhookSecret(),
    signature_scheme: "standard_webhooks" as const,
    created_at: deps.clock.now().toISOString(),
  };
  let taken = new Set(existing.map((endpoint) => endpoint.slot));
  // A concurrent registration may take the slot first: read the slots again and try the next free one.
  for (let tries = 0; tries < MAX_WEBHOOK_ENDPOINTS; tries++) {
    const slot = Array.from({ length: MAX_WEBHOOK_ENDPOINTS }, (_, index) => index).find(
      (candidate) => !taken.has(candidate),
    );
    if (slot === undefined) return { kind: "full" };
    const endpoint: WebhookEndpoint = { ...fields, slot };
    if (await deps.store.putEndpoint(endpoint)) return { kind: "created", endpoint };
    taken = new Set([...(await deps.store.listEndpoints()).map((found) => found.slot), slot]);
  }
  return { kind: "full" };
}

/** Deletes an endpoint: nothing more is sent to it (a queued delivery finds its slot empty). */
export async function deleteWebhookEndpoint(
  endpointId: string,
  deps: Pick<WebhookEndpointDeps, "store">,
): Promise<WebhookEndpoint | undefined> {
  const endpoint = (await deps.store.listEndpoints()).find((found) => found.endpoint_id === endpointId);
  if (endpoint === undefined) return undefined;
  return (await deps.store.deleteEndpoint(endpoint)) ? endpoint : undefined;
}

/** An endpoint's recent deliveries, newest first; undefined when there is no such endpoint. */
export async function listWebhookDeliveries(
  endpointId: string,
  deps: Pick<WebhookEndpointDeps, "store" | "clock">,
): Promise<readonly WebhookDelivery[] | undefined> {
  const endpoints = await deps.store.listEndpoints();
  if (!endpoints.some((endpoint) => endpoint.endpoint_id === endpointId)) return undefined;
  return deps.store.listDeliveries(endpointId, WEBHOOK_DELIVERY_LIST_LIMIT, deps.clock.now());
}

/** Whether an endpoint wants events of this type. */
export function isSubscribed(endpoint: Pick<WebhookEndpoint, "events">, type: string): boolean {
  return endpoint.events.some((subscribed) => subscribed === ALL_EVENT_TYPES || subscribed === type);
}

export interface WebhookFanOutDeps {
  readonly store: Pick<WebhookStore, "listEndpoints">;
  readonly queue: WebhookQueue;
  readonly ids: Pick<IdSource, "webhookDeliveryId">;
}

/**
 * What a set of deliveries comes from: the bus's entry (its id and time are the same on every retry of the rule's
 * target, so a retried fan-out names the same deliveries), or a replay.
 */
export interface DeliverySource {
  readonly id: string;
  readonly time: string;
}

/**
 * Queues the event for every endpoint subscribed to its type (or only the one named). The event goes as it came (the
 * bus's detail, serialised once here). Answers how many deliveries were queued.
 */
export async function queueWebhookDeliveries(
  source: DeliverySource,
  event: Pick<OutboxEvent, "event_id" | "type"> & Readonly<Record<string, unknown>>,
  deps: WebhookFanOutDeps,
  only?: string,
): Promise<number> {
  const endpoints = (await deps.store.listEndpoints()).filter(
    (endpoint) => isSubscribed(endpoint, event.type) && (only === undefined || endpoint.endpoint_id === only),
  );
  if (endpoints.length === 0) return 0;
  const created_at = new Date(source.time).toISOString();
  await deps.queue.send(
    endpoints.map((endpoint) => ({
      delivery_id: deps.ids.webhookDeliveryId(`${source.id}:${endpoint.endpoint_id}`),
      endpoint_id: endpoint.endpoint_id,
      slot: endpoint.slot,
      created_at,
      event_id: event.event_id,
      event_type: event.type,
      body: JSON.stringify(event),
    })),
  );
  return endpoints.length;
}

/** The wait before the attempt after `attempts` failed ones: 1 minute, doubling, at most 6 hours. */
export function webhookRetryDelaySeconds(attempts: number): number {
  const doubled = WEBHOOK_RETRY_BASE_SECONDS * 2 ** Math.max(0, attempts - 1);
  return Math.min(WEBHOOK_RETRY_MAX_SECONDS, doubled);
}

/**
 * The attempts a delivery that never succeeds gets, each at its offset (seconds) from the first: the last is the last
 * one whose wait still ends inside the retry window.
 */
export function webhookAttemptSchedule(): number[] {
  const offsets = [0];
  for (;;) {
    const last = offsets.at(-1) ?? 0;
    const next = last + webhookRetryDelaySeconds(offsets.length);
    if (next * 1000 > WEBHOOK_RETRY_WINDOW_MS) return offsets;
    offsets.push(next);
  }
}

/**
 * Receives of a delivery message before SQS moves it to the dead-letter queue: every attempt of the schedule, and
 * room for as many again (a worker that crashed, an early wake-up) — only a sender that keeps failing reaches it.
 */
export const WEBHOOK_MAX_RECEIVE_COUNT = webhookAttemptSchedule().length * 2;

export type WebhookAttemptOutcome =
  | "delivered"
  | "retrying"
  | "failed"
  /** Another message already owns the delivery (a repeated fan-out), or it was settled before. */
  | "duplicate"
  /** The endpoint was deleted: nothing is sent. */
  | "endpoint_deleted"
  /** Woken before its time (a clock ahead of the queue's): put back until then. */
  | "not_due";

export interface WebhookAttemptDeps {
  readonly store: Pick<WebhookStore, "getEndpoint" | "getDelivery" | "createDelivery" | "updateDelivery">;
  readonly transport: Pick<WebhookTransport, "post">;
  readonly clock: Clock;
}

export interface WebhookAttempt {
  readonly outcome: WebhookAttemptOutcome;
  readonly work: WorkResult;
  readonly delivery?: WebhookDelivery;
}

const secondsBetween = (from: Date, to: Date) => Math.ceil((to.getTime() - from.getTime()) / 1000);

/**
 * One attempt of a queued delivery (the message `messageId`): claims the delivery for its message, POSTs the event to
 * the endpoint, and records what came of it. A 2xx is delivered; anything else is retried after the backoff, unless
 * the next attempt would fall past the retry window: then the delivery is failed.
 */
export async function attemptWebhookDelivery(
  message: WebhookDeliveryMessage,
  messageId: string,
  deps: WebhookAttemptDeps,
): Promise<WebhookAttempt> {
  const now = deps.clock.now();
  const delivery = await claimDelivery(message, messageId, now, deps);
  if (delivery.message_id !== messageId || delivery.status !== "retrying")
    return { outcome: "duplicate", work: done(`delivery ${delivery.status} already`), delivery };
  if (delivery.next_attempt_at !== undefined && new Date(delivery.next_attempt_at) > now) {
    const wait = secondsBetween(now, new Date(delivery.next_attempt_at));
    return { outcome: "not_due", work: retry(wait, "not due yet"), delivery };
  }
  const endpoint = await deps.store.getEndpoint(message.slot, message.endpoint_id);
  if (endpoint === undefined)
    return { outcome: "endpoint_deleted", work: done("the endpoint was deleted"), delivery };
  const posted = await deps.transport.post(endpoint, message.body, {
    event_id: message.event_id,
    type: message.event_type,
  });
  const attempts = delivery.attempts + 1;
  const firstAttemptAt = delivery.first_attempt_at ?? now.toISOString();
  const answered = posted.kind === "answered" ? { last_status: posted.status } : {};
  const base = {
    ...withoutAttemptFields(delivery),
    attempts,
    first_attempt_at: firstAttemptAt,
    last_attempt_at: now.toISOString(),
    ...answered,
    ...(posted.kind === "failed" ? { last_error: posted.error } : {}),
    updated_at: now.toISOString(),
  };
  const succeeded = posted.kind === "answered" && posted.status >= 200 && posted.status < 300;
  const delaySeconds = webhookRetryDelaySeconds(attempts);
  const nextAt = new Date(now.getTime() + delaySeconds * 1000);
  const giveUp = nextAt.getTime() - Date.parse(firstAttemptAt) > WEBHOOK_RETRY_WINDOW_MS;
  const next: WebhookDelivery = succeeded
    ? { ...base, status: "delivered" }
    : giveUp
      ? { ...base, status: "failed" }
      : { ...base, status: "retrying", next_attempt_at: nextAt.toISOString() };
  if (!(await deps.store.updateDelivery(next, delivery.attempts)))
    return afterRecordedElsewhere(delivery, messageId, deps);
  if (next.status === "retrying")
    return { outcome: "retrying", work: retry(delaySeconds, "endpoint did not take it"), delivery: next };
  return { outcome: next.status, work: done(next.status), delivery: next };
}

/**
 * Another attempt was recorded first: the same message received twice at once (its visibility ran out while this
 * attempt waited on the endpoint). While the delivery is still retrying on this message, the message is its only way
 * to a next attempt: it is kept until then, never deleted as a duplicate.
 */
async function afterRecordedElsewhere(
  claimed: WebhookDelivery,
  messageId: string,
  deps: WebhookAttemptDeps,
): Promise<WebhookAttempt> {
  const recorded = (await deps.store.getDelivery(claimed)) ?? claimed;
  if (recorded.status !== "retrying" || recorded.message_id !== messageId)
    return { outcome: "duplicate", work: done("another attempt was recorded first"), delivery: recorded };
  const nextAt =
    recorded.next_attempt_at === undefined ? deps.clock.now() : new Date(recorded.next_attempt_at);
  const wait = Math.max(1, secondsBetween(deps.clock.now(), nextAt));
  return { outcome: "not_due", work: retry(wait, "another attempt was recorded first"), delivery: recorded };
}

/** The delivery's record without what each attempt writes anew. */
function withoutAttemptFields(delivery: WebhookDelivery): WebhookDelivery {
  const { last_status: _status, last_error: _error, next_attempt_at: _next, ...rest } = delivery;
  return rest;
}

/** The delivery's record, created for this message on its first receive. */
async function claimDelivery(
  message: WebhookDeliveryMessage,
  messageId: string,
  now: Date,
  deps: WebhookAttemptDeps,
): Promise<WebhookDelivery> {
  const key = {
    endpoint_id: message.endpoint_id,
    created_at: message.created_at,
    delivery_id: message.delivery_id,
  };
  const recorded = await deps.store.getDelivery(key);
  if (recorded !== undefined) return recorded;
  const fresh: WebhookDelivery = {
    ...key,
    event_id: message.event_id,
    event_type: message.event_type,
    status: "retrying",
    attempts: 0,
    message_id: messageId,
    updated_at: now.toISOString(),
  };
  if (await deps.store.createDelivery(fresh)) return fresh;
  const raced = await deps.store.getDelivery(key);
  if (raced === undefined) throw new Error("a delivery claimed by another message is missing");
  return raced;
}
