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
  /** The named reason of the gateway's v2 error list (`errcode`, e.g. EXPIRED_CARD), when the answer carries one. */
  readonly errcode?: string;
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

/** The documented success code; resmsg varies ("Success" / "Success."), so only rescode is compared. */
export const SUCCESS_RESCODE = "0000";

/** Mutations move money or state and are never retried inside the client; reads are safe to repeat. */
export type CallKind = "mutation" | "read";

export const success = <T>(value: T): Success<T> => ({ kind: "success", value });

/** A failure in one line, for logs and reports: the gateway's code and message, or why no answer came. */
export const failureReason = (failure: Failure): string =>
  failure.kind === "declined" || failure.kind === "invalid"
    ? `${failure.code}: ${failure.message}`
    : failure.reason;

/**
 * Communication and internal errors of the gateway (README, The real gateway): EEEE (duplicated call), EE00–EE99
 * (acquirer link), EM00 ("try again later"), EX00–EX99 and EX1000 (internal). None says what became of the request.
 */
const TRANSIENT_RESCODE = /^(?:EEEE|E[EMX]\d{2,4})$/;
/** The v2 reason that says the same of any rescode. */
const TRANSIENT_ERRCODE = "TEMPORARY_ERROR";

/**
 * Classifies a payment or reconciliation rescode (README, The real gateway: production settings). A transient error
 * on a mutation is `unknown` — the gateway had the request and the acquirer may have acted, so the engine must
 * retrieve before anything else; on a read it is `unavailable` (ask again). EC and HE codes say our request (or the
 * customer's input) was wrong; every other code is a refusal, with the v2 `errcode` reason when the answer carries
 * one.
 */
export function classifyRescode(code: string, message: string, kind: CallKind, errcode?: string): Failure {
  if (/^(?:EC|HE)/.test(code)) return { kind: "invalid", code, message };
  if (TRANSIENT_RESCODE.test(code) || errcode === TRANSIENT_ERRCODE) {
    return kind === "mutation"
      ? { kind: "unknown", reason: `gateway ${code}: ${message}` }
      : { kind: "unavailable", reason: `gateway ${code}: ${message}` };
  }
  return errcode === undefined || errcode === ""
    ? { kind: "declined", code, message }
    : { kind: "declined", code, message, errcode };
}
