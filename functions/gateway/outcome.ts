/**
 * What a gateway call came to. The billing engine branches on `kind`:
 * - success: the gateway did it;
 * - declined: a definitive refusal (issuer decline, rule of the gateway); retrying the same request will not help;
 * - invalid: our request was wrong (EC*, HE*, or a response we could not read on a read-only call);
 * - unavailable: refused before the gateway accepted it (connection refused, 5xx, throttling) — safe to retry;
 * - unknown: the request may have taken effect (timeout or reset after sending) — never retry blindly, retrieve.
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

/** Mutations move money or state and are never retried inside the client; reads are safe to repeat. */
export type CallKind = "mutation" | "read";

export const success = <T>(value: T): Success<T> => ({ kind: "success", value });

/** A failure in one line, for logs and reports: the gateway's code and message, or why no answer came. */
export const failureReason = (failure: Failure): string =>
  failure.kind === "declined" || failure.kind === "invalid"
    ? `${failure.code}: ${failure.message}`
    : failure.reason;

/**
 * Classifies a payment or reconciliation rescode (DESIGN.md §2). Communication and internal errors on a mutation
 * are `unknown`: the acquirer may have acted, so the engine must retrieve before anything else.
 */
export function classifyRescode(code: string, message: string, kind: CallKind): Failure {
  if (/^(?:EC|HE)/.test(code)) return { kind: "invalid", code, message };
  if (code === "EEEE" || /^E[EX]\d{2}$/.test(code)) {
    return kind === "mutation"
      ? { kind: "unknown", reason: `gateway ${code}: ${message}` }
      : { kind: "unavailable", reason: `gateway ${code}: ${message}` };
  }
  return { kind: "declined", code, message };
}
