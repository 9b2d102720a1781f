import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import { type BillingEvent, eventFactsSchema } from "../base/events";

// What a webhook delivery is made of and the ports that keep, queue and post it (README, Webhooks): the endpoints
// and delivery records the billing table stores, the delivery queue's messages, and the signed POST.

/** Every billing event type an endpoint may subscribe to (read from the events' schema, so built on first use). */
export const webhookEventTypes = () =>
  eventFactsSchema.options.map((option) => option.shape.type.value) as readonly BillingEvent["type"][];

/** An endpoint subscribed to every event type. */
export const ALL_EVENT_TYPES = "*";

/** Endpoints one account may have: a handful is the expected scale. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
/** An endpoint must answer within this (a 2xx later than that counts as a failure). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How long a delivery's record stays readable (the table's TTL). */
export const WEBHOOK_DELIVERY_RETENTION_MS = 30 * 86_400_000;
/**
 * How an endpoint's deliveries are signed: by the Standard Webhooks spec (every endpoint registered since it), or with
 * the billing-signature header of the endpoints registered before (their records carry no scheme).
 */
export const WEBHOOK_SIGNATURE_SCHEMES = ["standard_webhooks", "billing_signature"] as const;

export const webhookEventTypeSchema = lazySchema(() => z.enum([ALL_EVENT_TYPES, ...webhookEventTypes()]));

export const webhookEndpointSchema = lazySchema(() =>
  z.object({
    endpoint_id: z.string().min(1),
    /** Which of the MAX_WEBHOOK_ENDPOINTS places it holds: a create-only write per place keeps the cap exact. */
    slot: z
      .number()
      .int()
      .min(0)
      .max(MAX_WEBHOOK_ENDPOINTS - 1),
    url: z.string().min(1),
    events: z.array(webhookEventTypeSchema).min(1),
    description: z.string().optional(),
    /** The signing secret (whsec_…): shown to the merchant once, when the endpoint is created. */
    secret: z.string().min(1),
    signature_scheme: z.enum(WEBHOOK_SIGNATURE_SCHEMES).default("billing_signature"),
    created_at: z.iso.datetime(),
  }),
);
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const WEBHOOK_DELIVERY_STATUSES = ["retrying", "delivered", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const webhookDeliverySchema = lazySchema(() =>
  z.object({
    delivery_id: z.string().min(1),
    endpoint_id: z.string().min(1),
    event_id: z.string().min(1),
    event_type: z.string().min(1),
    /** When the event was queued for the endpoint: the delivery's key sorts by it. */
    created_at: z.iso.datetime(),
    /** retrying: waiting for its next attempt (the first included). */
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int().min(0),
    /** The queue message that owns the delivery: another message for it (a repeated fan-out) is a duplicate. */
    message_id: z.string().min(1),
    first_attempt_at: z.iso.datetime().optional(),
    last_attempt_at: z.iso.datetime().optional(),
    next_attempt_at: z.iso.datetime().optional(),
    /** The endpoint's last HTTP status, or why the last attempt got none (timeout, refused address, …). */
    last_status: z.number().int().optional(),
    last_error: z.string().optional(),
    updated_at: z.iso.datetime(),
  }),
);
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** A delivery's key: its endpoint, then when it was queued and its id (newest first is one Query). */
export type WebhookDeliveryKey = Pick<WebhookDelivery, "endpoint_id" | "created_at" | "delivery_id">;

/**
 * One event for one endpoint, as queued: `body` is the bus's detail as JSON, exactly what is signed and sent; ids and
 * the endpoint's place besides it, never its secret.
 */
export const webhookDeliveryMessageSchema = lazySchema(() =>
  z.object({
    delivery_id: z.string().min(1),
    endpoint_id: z.string().min(1),
    slot: webhookEndpointSchema.shape.slot,
    created_at: z.iso.datetime(),
    event_id: z.string().min(1),
    event_type: z.string().min(1),
    body: z.string().min(2),
  }),
);
export type WebhookDeliveryMessage = z.infer<typeof webhookDeliveryMessageSchema>;

/** Parses a queued body; throws (naming no value) when it is not a delivery message. */
export function parseWebhookDeliveryMessage(body: string): WebhookDeliveryMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error("malformed webhook delivery: not JSON");
  }
  const parsed = webhookDeliveryMessageSchema.safeParse(json, { reportInput: false });
  if (!parsed.success) throw new Error("malformed webhook delivery: not a delivery message");
  return parsed.data;
}

/** The billing table's endpoints and delivery records. */
export interface WebhookStore {
  /** Every endpoint (at most MAX_WEBHOOK_ENDPOINTS), read consistently. */
  listEndpoints(): Promise<readonly WebhookEndpoint[]>;
  /** The endpoint in `slot`, only while it is still the one named (a deleted endpoint's place may hold another). */
  getEndpoint(slot: number, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Create-only in its slot: false when the slot is taken. */
  putEndpoint(endpoint: WebhookEndpoint): Promise<boolean>;
  /** Deletes it from its slot: false when the slot no longer holds it. */
  deleteEndpoint(endpoint: WebhookEndpoint): Promise<boolean>;
  getDelivery(key: WebhookDeliveryKey): Promise<WebhookDelivery | undefined>;
  /** Create-only: false when the delivery is already recorded. Expires WEBHOOK_DELIVERY_RETENTION_MS after created_at. */
  createDelivery(delivery: WebhookDelivery): Promise<boolean>;
  /** Writes a delivery after an attempt, unless another attempt was recorded since (`attempts` moved on). */
  updateDelivery(delivery: WebhookDelivery, previousAttempts: number): Promise<boolean>;
  /** An endpoint's deliveries, newest first, those past their retention left out. */
  listDeliveries(endpointId: string, limit: number, now: Date): Promise<readonly WebhookDelivery[]>;
}

/** The delivery queue: one message per event and endpoint. */
export interface WebhookQueue {
  /** Queues every message or throws (what was queued then comes again when the caller is retried). */
  send(messages: readonly WebhookDeliveryMessage[]): Promise<void>;
}

/** What one POST came to: the endpoint's HTTP status, or why there was none. */
export type WebhookPostOutcome =
  | { readonly kind: "answered"; readonly status: number }
  | { readonly kind: "failed"; readonly error: string };

/** Where webhooks go out: the URL rules (scheme, addresses) and the signed POST. */
export interface WebhookTransport {
  /** Why the URL may not receive webhooks (never repeating it), or undefined when it may. */
  refusalOf(url: string): Promise<string | undefined>;
  /**
   * POSTs `body` to the endpoint, signed with its secret by its scheme, within WEBHOOK_TIMEOUT_MS, connecting only to
   * an address the URL rules allow. Never throws for the endpoint's failures (they are outcomes). The signature's
   * time is the moment of sending on the wall clock, the one a receiver checks it against (in local mode too, where
   * the stack's clock may have jumped ahead).
   */
  post(
    endpoint: Pick<WebhookEndpoint, "url" | "secret" | "signature_scheme">,
    body: string,
    event: { readonly event_id: string; readonly type: string },
  ): Promise<WebhookPostOutcome>;
}
