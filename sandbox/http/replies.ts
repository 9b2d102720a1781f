import { ZodError, type z } from "zod";
import { DuplicateCall, SUCCESS_RESCODE, SUCCESS_RESMSG } from "../acquirer/result-codes";

/** What a route handler answers: a JSON body, or a page (HTML, a script) a browser loads, and its HTTP status. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly page?: { readonly contentType: string; readonly text: string };
  readonly headers?: Readonly<Record<string, string>>;
}

export function htmlReply(text: string, status = 200): Reply {
  return { status, body: null, page: { contentType: "text/html; charset=utf-8", text } };
}

export function scriptReply(text: string): Reply {
  return { status: 200, body: null, page: { contentType: "text/javascript; charset=utf-8", text } };
}

export const PARTNER_SUCCESS_CODE = "CMN_0000";

/** `{"rescode":"0000","resmsg":"Success.", …fields}`. */
export function okReply(fields: Readonly<Record<string, unknown>> = {}, status = 200): Reply {
  return { status, body: { rescode: SUCCESS_RESCODE, resmsg: SUCCESS_RESMSG, ...fields } };
}

/** A payment/reconciliation/webhook-management failure: `{rescode, resmsg}`. */
export function rescodeReply(status: number, rescode: string, resmsg: string): Reply {
  return { status, body: { rescode, resmsg } };
}

/** The partner envelope `{code, message, data}`. */
export function partnerReply(status: number, code: string, message: string, data: unknown = null): Reply {
  return { status, body: { code, message, data } };
}

export function partnerOkReply(data: unknown = null, status = 200): Reply {
  return partnerReply(status, PARTNER_SUCCESS_CODE, "Success", data);
}

/**
 * A request field the sandbox refuses, thrown from any depth of a handler: answered as the API family's
 * invalid-parameter error naming the field. The reason describes the rule, never the value.
 */
export class InvalidField extends Error {
  override readonly name = "InvalidField";
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid ${field}: ${reason}`);
  }
}

/** Parses a request part with one of the sandbox's schemas; the first issue becomes an InvalidField. */
export function parseFields<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw new InvalidField(issue ? fieldOfIssue(issue) : "(body)", issue?.message ?? "is invalid");
}

/** Thrown by a handler (from any depth) to answer with `reply`. */
export class ReplyError extends Error {
  override readonly name = "ReplyError";
  constructor(readonly reply: Reply) {
    super("sandbox reply");
  }
}

/**
 * The answers the server itself gives, in the dialect of the API family. Codes the seeds do not document are marked
 * (invented); every status code is a sandbox choice (the seeds show none).
 */
export interface ErrorStyle {
  /** Credentials missing or wrong; `kind` tells which credential the route expects. */
  unauthorized(kind: "basic" | "partner-api-key" | "partner-bearer"): Reply;
  badBody(reason: string): Reply;
  methodNotAllowed(): Reply;
  notFound(): Reply;
  invalidParameter(field: string): Reply;
  /** An injected 503: nothing was handled. */
  unavailable(): Reply;
  /** An injected 429: too many requests, nothing was handled. */
  throttled(): Reply;
  /** An injected internal error of the gateway (EM00 or EX1000): nothing was handled. */
  internalError(code: "EM00" | "EX1000"): Reply;
  /** A handler threw: the process goes on. */
  internal(): Reply;
}

export const rescodeStyle: ErrorStyle = {
  unauthorized: () => rescodeReply(401, "EC1000", "Authorization is missing or invalid"),
  badBody: (reason) => rescodeReply(400, "EC1001", `Invalid request body: ${reason}`),
  methodNotAllowed: () => rescodeReply(405, "EC1003", "HTTP method not allowed"),
  notFound: () => rescodeReply(404, "EC1004", "Unknown path"), // invented
  invalidParameter: (field) => rescodeReply(400, "EC00", `Invalid parameter: ${field}`),
  unavailable: () => rescodeReply(503, "EX01", "Service temporarily unavailable"),
  throttled: () => rescodeReply(429, "EX01", "Too many requests"), // invented
  internalError: (code) =>
    code === "EM00"
      ? rescodeReply(200, "EM00", "Internal server error. Please try again later.")
      : rescodeReply(200, "EX1000", "Internal server error"),
  internal: () => rescodeReply(500, "EX99", "Internal error"),
};

export const partnerStyle: ErrorStyle = {
  unauthorized: (kind) =>
    kind === "partner-bearer"
      ? partnerReply(401, "AUTH_3001", "The access token is invalid or expired")
      : partnerReply(401, "AUTH_3000", "The API key is invalid"), // invented
  badBody: (reason) => partnerReply(400, "CMN_4001", `Invalid request body: ${reason}`), // invented
  methodNotAllowed: () => partnerReply(405, "CMN_4005", "HTTP method not allowed"), // invented
  notFound: () => partnerReply(404, "CMN_4004", "Unknown path"), // invented
  invalidParameter: (field) => partnerReply(400, "CMN_4000", `Invalid parameter: ${field}`), // invented
  unavailable: () => partnerReply(503, "CMN_5003", "Service temporarily unavailable"), // invented
  throttled: () => partnerReply(429, "CMN_4290", "Too many requests"), // invented
  internalError: () => partnerReply(500, "CMN_5000", "Internal error"), // invented
  internal: () => partnerReply(500, "CMN_5000", "Internal error"), // invented
};

/**
 * The reply for anything a handler throws: a ReplyError's own reply; a DuplicateCall the payment API's EEEE (HTTP
 * 409); an InvalidField or ZodError becomes "Invalid parameter: <field>" (the value is never echoed); anything else an
 * internal error.
 */
export function replyForError(error: unknown, style: ErrorStyle): Reply {
  if (error instanceof ReplyError) return error.reply;
  if (error instanceof DuplicateCall) return rescodeReply(409, "EEEE", error.message);
  if (error instanceof InvalidField) return style.invalidParameter(error.field);
  if (error instanceof ZodError) {
    const [issue] = error.issues;
    return style.invalidParameter(issue ? fieldOfIssue(issue) : "(body)");
  }
  return style.internal();
}

/** The dotted field name of a zod issue (`payment.amount`); an unknown key of a strict object is named itself. */
export function fieldOfIssue(issue: z.core.$ZodIssue): string {
  const [key] = issue.code === "unrecognized_keys" ? issue.keys : [];
  const path = [...issue.path.map(String), ...(key === undefined ? [] : [key])];
  return path.length === 0 ? "(body)" : path.join(".");
}
