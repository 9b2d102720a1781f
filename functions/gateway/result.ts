/**
 * What a call to the gateway came to, in the client's own terms (the billing core has its own, and
 * `functions/adapters/outside/payment-gateway.ts` translates):
 * - success: rescode 0000 (or the API's success code) and an answer that reads;
 * - declined: a definitive refusal (issuer decline, rule of the gateway); the same request will not help;
 * - invalid: the request was wrong (EC*, HE*, or a response that does not read on a read-only call);
 * - unavailable: refused before the gateway accepted it (connection refused, 429, any 5xx of a read) — safe to repeat;
 * - unknown: the request may have taken effect (timeout, reset or a 5xx after sending a mutation) — retrieve first.
 */
export type GatewayResult<T> = { readonly kind: "success"; readonly value: T } | GatewayFailure;

export type GatewayFailure = Declined | Invalid | Unavailable | Unknown;

export interface Declined {
  readonly kind: "declined";
  readonly code: string;
  readonly message: string;
  /** The named reason of the gateway's v2 error list (`errcode`, e.g. EXPIRED_CARD), when the answer has one. */
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

/** The documented success code; resmsg varies ("Success" / "Success."), so only rescode is compared. */
export const SUCCESS_RESCODE = "0000";

/** Mutations move money or state and are never retried inside the client; reads are safe to repeat. */
export type CallKind = "mutation" | "read";

export const success = <T>(value: T): GatewayResult<T> => ({ kind: "success", value });

/**
 * Communication and internal errors of the gateway (README, The real gateway): EEEE (duplicated call), EE00–EE99
 * (acquirer link), EM00 ("try again later"), EX00–EX99 and EX1000 (internal). None says what became of the request.
 */
const TRANSIENT_RESCODE = /^(?:EEEE|E[EMX]\d{2,4})$/;
/** The v2 reason that says the same of any rescode. */
const TRANSIENT_ERRCODE = "TEMPORARY_ERROR";

/**
 * Classifies a payment or reconciliation rescode (README, The real gateway: production settings). A transient error
 * on a mutation is `unknown` — the gateway had the request and the acquirer may have acted, so the caller must
 * retrieve before anything else; on a read it is `unavailable` (ask again). EC and HE codes say the request (or the
 * customer's input) was wrong; every other code is a refusal, with the v2 `errcode` reason when the answer has one.
 */
export function classifyRescode(
  code: string,
  message: string,
  kind: CallKind,
  errcode?: string,
): GatewayFailure {
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
