import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import { fieldOf } from "../../shared/zod-fields";
import type { OutboxEvent } from "../base/events";
import { subscriptionSchema } from "../base/model";

/** One unit of work of the charge run: charge this subscription's period. Ids only, never card data. */
export interface ChargeMessage {
  readonly subscription_id: string;
  readonly period: number;
}

/** The body of a charge message: ids only, never card data. */
export const chargeMessageSchema = lazySchema(() =>
  z.object({
    subscription_id: z.string().min(1),
    period: subscriptionSchema.shape.period,
  }),
);

/** A queued body that is not a charge message. Names the field, never the value. */
export class MalformedMessageError extends Error {
  override readonly name = "MalformedMessageError";
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`malformed charge message: ${field}: ${reason}`);
  }
}

export function toChargeMessage(input: unknown): ChargeMessage {
  const result = chargeMessageSchema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw new MalformedMessageError(
    issue ? (fieldOf(issue) ?? "(body)") : "(body)",
    issue?.message ?? "invalid",
  );
}

/** Parses a queued body (JSON {subscription_id, period}). */
export function parseChargeMessage(body: string): ChargeMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedMessageError("(body)", "not JSON");
  }
  return toChargeMessage(json);
}

export interface ChargeQueue {
  /** Sends in batches (SendMessageBatch); resolves when every message is accepted. */
  send(messages: readonly ChargeMessage[]): Promise<void>;
}

/** The bus: delivers events at least once; an error means some may not have been delivered. */
export interface EventPublisher {
  publish(events: readonly OutboxEvent[]): Promise<void>;
}
