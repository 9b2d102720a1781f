import type { DeadEnd, DeclineReason } from "./model";

/**
 * What a gateway call came to. The billing engine branches on `kind`:
 * - success: the gateway did it;
 * - declined: a definitive refusal (issuer decline, rule of the gateway); retrying the same request will not help;
 * - invalid: our request was wrong (EC*, HE*, or a response we could not read on a read-only call);
 * - unavailable: refused before the gateway accepted it (connection refused, throttling; any 5xx of a read) — safe to
 *   retry;
 * - unknown: the request may have taken effect (timeout, reset or a 5xx after sending a mutation) — never retry
 *   blindly, retrieve.
 */
export type GatewayOutcome<T> = Success<T> | Declined | Invalid | Unavailable | Unknown;

export interface Success<T> {
  readonly kind: "success";
  readonly value: T;
}
export interface Declined {
  readonly kind: "declined";
  readonly code: string;
  readonly message: string;
  /** The gateway's named reason of the refusal (e.g. EXPIRED_CARD), when the answer carries one. */
  readonly errcode?: string;
  /** Set when no retry can succeed: the stored token or the card behind it is dead (the adapter decides). */
  readonly deadEnd?: DeadEnd;
  /** Why, in the customer's terms (the adapter reads it from the gateway's codes). */
  readonly reason?: DeclineReason;
}
export interface Invalid {
  readonly kind: "invalid";
  readonly code: string;
  readonly message: string;
}
export interface Unavailable {
  readonly kind: "unavailable";
  readonly reason: string;
  readonly status?: number;
}
export interface Unknown {
  readonly kind: "unknown";
  readonly reason: string;
}

export type Failure = Declined | Invalid | Unavailable | Unknown;

export const success = <T>(value: T): Success<T> => ({ kind: "success", value });

/** A failure in one line, for logs and reports: the gateway's code and message, or why no answer came. */
export const failureReason = (failure: Failure): string =>
  failure.kind === "declined" || failure.kind === "invalid"
    ? `${failure.code}: ${failure.message}`
    : failure.reason;
