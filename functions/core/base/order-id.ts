import type { AttemptKey } from "./model";

/** The gateway's order_id limit. */
export const MAX_ORDER_ID_LENGTH = 30;

/**
 * order_id = f(subscription, period, attempt): deterministic, so a retry of the same attempt sends the same order_id
 * and a new attempt never reuses one (the gateway forbids reuse after a failure). Reversible, so a callback that
 * carries only the order_id leads straight to its ledger line.
 */
export function orderIdFor({ subscription_id, period, attempt }: AttemptKey): string {
  const orderId = `${subscription_id}-${period}-${attempt}`;
  if (orderId.length > MAX_ORDER_ID_LENGTH)
    throw new RangeError(`order_id longer than ${MAX_ORDER_ID_LENGTH}`);
  return orderId;
}

export function attemptKeyOf(orderId: string): AttemptKey | undefined {
  const match = /^(.+)-(\d{1,6})-(\d{1,4})$/.exec(orderId);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  return { subscription_id: match[1], period: Number(match[2]), attempt: Number(match[3]) };
}
