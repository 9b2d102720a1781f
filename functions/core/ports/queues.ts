import type { OutboxEvent } from "../base/events";

/** One unit of work of the charge run: charge this subscription's period. Ids only, never card data. */
export interface ChargeMessage {
  readonly subscription_id: string;
  readonly period: number;
}

export interface ChargeQueue {
  /** Sends in batches (SendMessageBatch); resolves when every message is accepted. */
  send(messages: readonly ChargeMessage[]): Promise<void>;
}

/** The bus: delivers events at least once; an error means some may not have been delivered. */
export interface EventPublisher {
  publish(events: readonly OutboxEvent[]): Promise<void>;
}
