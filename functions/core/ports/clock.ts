// The core's ports (README, Layout), one file per concern: the clock and ids here, the billing table's aggregates
// (billing-repository.ts), the gateway (payment-gateway.ts), the queues and the bus (queues.ts). Adapters live in
// functions/adapters/; tests may pass fakes.

export interface Clock {
  now(): Date;
}

export interface IdSource {
  /** A new subscription id, short enough for order_id = `<id>-<period>-<attempt>` to stay ≤ 30 characters. */
  subscriptionId(): string;
  /** The same, derived from a request's idempotency key: the same key always names the same subscription. */
  subscriptionIdFor(requestKey: string): string;
  /** A new refund_id (≤ 30 characters), for a refund asked without an idempotency key. */
  refundId(): string;
  /** A new secret for a gateway-managed plan's recurring_noti_url (unguessable, URL-safe). */
  notifyToken(): string;
  /** The refund_id of a request's idempotency key on a charge: the same key and charge always name the same refund. */
  refundIdFor(requestKey: string, orderId: string): string;
  /** A new webhook endpoint's id. */
  webhookEndpointId(): string;
  /** The same, derived from a request's idempotency key: a retried registration names the same endpoint. */
  webhookEndpointIdFor(requestKey: string): string;
  /** A new endpoint's signing secret (whsec_ and 32 random bytes in base64, as Standard Webhooks has it). */
  webhookSecret(): string;
  /** A delivery's id, derived from what it delivers (the same source names the same delivery). */
  webhookDeliveryId(source: string): string;
  /** A new price's id (price_…). */
  priceId(): string;
  /** The same, derived from a request's idempotency key: a retried creation names the same price. */
  priceIdFor(requestKey: string): string;
  /** A new coupon's id (co_…). */
  couponId(): string;
  /** The same, derived from a request's idempotency key: a retried creation names the same coupon. */
  couponIdFor(requestKey: string): string;
}
