// The result codes the acquirer decides, whatever answers them: a route's reply, a status_url callback, a recurring
// notice or a webhook. How they reach the wire (HTTP status, envelope) is the api and http rooms' business.

/** The payment API's success code (seed 000); resmsg reads "Success." with a period. */
export const SUCCESS_RESCODE = "0000";
export const SUCCESS_RESMSG = "Success.";

/** A refusal the merchant reads from rescode / resmsg. */
export interface Refusal {
  readonly rescode: string;
  readonly resmsg: string;
  /** The v2 named reason (README, The real gateway), where the gateway's list has one. */
  readonly errcode?: string;
}

/** Invented refusals of stored tokens. */
export const TOKEN_REFUSALS = {
  expired: { rescode: "TK01", resmsg: "Token expired" },
  revoked: { rescode: "TK02", resmsg: "Token revoked" },
  deleted: { rescode: "TK03", resmsg: "Token deleted" },
} as const satisfies Record<string, Refusal>;

/**
 * EEEE: the order_id was used before (success or failure) or the same operation was already done. Thrown from any
 * depth of a handler; the dispatcher answers it HTTP 409 `{"rescode":"EEEE","resmsg":"Duplicate call: <what>"}`.
 */
export class DuplicateCall extends Error {
  override readonly name = "DuplicateCall";
  constructor(what: string) {
    super(`Duplicate call: ${what}`);
  }
}
