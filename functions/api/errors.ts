import type { z } from "zod";
import type { InvalidInput } from "../core/base/money";
import type { Failure } from "../core/base/outcome";
import type { ChangeResult } from "../core/lifecycle/subscription-changes";
import { InvalidCursorError } from "../core/ports/billing-repository";
import { holdsCardNumber } from "../shared/card-number";
import { fieldOf } from "../shared/zod-fields";
import type { DeclineView, ErrorBody } from "./merchant-api-views";
import { declineView } from "./views";

// Every failure the merchant API can meet, mapped to one HTTP answer (README, Merchant API). Messages never repeat
// input values (they may be card data).
// - 400 the request breaks its schema (the field is named) or is not JSON;
// - 401 missing or wrong API key;
// - 404 no such subscription, charge or route;
// - 405 a route's path under a method it does not take (Allow lists those it does);
// - 409 a canceled subscription, a lost race, an Idempotency-Key reused with another body;
// - 415 a write whose body is not declared application/json;
// - 422 well-formed but refused: declined (code = the gateway's rescode), rejected by the gateway, not refundable;
// - 503 the gateway is unavailable, or the outcome of a change that nothing tracks is unknown (Retry-After: repeat);
// - 202 (not an error) a tracked operation whose outcome is unknown (sign-up charge, ad hoc charge, refund): the
//   resource in its pending state, settled through retrieve; GET shows the result;
// - 500 anything unexpected, with a generic message: the only answer that is not the caller's to fix. Input is
//   parsed with parseInput, so a ZodError that escapes came from our own data and is a 500 too.

export type ErrorStatus = 400 | 401 | 404 | 405 | 409 | 415 | 422 | 503;

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** How long a client should wait before repeating a request the gateway could not take. */
export const RETRY_AFTER_SECONDS = 30;

/** A failure the caller can act on; `toErrorResponse` turns it into its answer. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** A refused payment: why, and what can be done. */
    readonly decline?: DeclineView,
  ) {
    super(message);
  }
}

/** The first issue of a schema violation as a 400 naming the field; zod's messages carry no input values. */
export function invalidRequest(error: z.ZodError): ApiError {
  const [issue] = error.issues;
  if (!issue) return new ApiError(400, "invalid_request", "the request is invalid");
  const field = fieldOf(issue);
  const message = issue.code === "unrecognized_keys" ? "is not a field of this request" : issue.message;
  return new ApiError(400, "invalid_request", message, field);
}

/** Where a request may carry a card number: its card object's number, and nowhere else. */
const CARD_NUMBER_FIELD = "card.number";

/**
 * The first field, in document order, that holds a card number outside the card's own field (a key holding one is
 * named by its parent, so the answer never repeats it); undefined when there is none.
 */
function fieldHoldingCardNumber(value: unknown, path: readonly string[] = []): string | undefined {
  const field = path.join(".");
  if (typeof value === "string")
    return field !== CARD_NUMBER_FIELD && holdsCardNumber(value) ? field : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (holdsCardNumber(key)) return field;
    const found = fieldHoldingCardNumber(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Parses one part of a request (body, path parameters, query, headers); a violation throws the 400. A card number in
 * any field but the card's own is refused first, naming the field and never repeating the value: it is not read,
 * stored, logged or sent on.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const holding = fieldHoldingCardNumber(input);
  if (holding !== undefined)
    throw new ApiError(
      400,
      "invalid_request",
      "must not hold a card number",
      holding === "" ? undefined : holding,
    );
  const result = schema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  throw invalidRequest(result.error);
}

/** A request body as JSON; an empty body is `{}` (every optional-only body may be left out). */
export function readJsonBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "malformed_json", "the request body is not valid JSON");
  }
}

/** A request the core refused before anything was written or sent (an amount its currency cannot carry, …). */
export const invalidInput = ({ field, message }: InvalidInput) =>
  new ApiError(400, "invalid_request", message, field);

/** A listing's page; a cursor that is not one of this listing's is a 400 naming `cursor`. */
export async function pageOrBadCursor<T>(list: () => Promise<T>): Promise<T> {
  try {
    return await list();
  } catch (error) {
    if (error instanceof InvalidCursorError)
      throw new ApiError(400, "invalid_request", error.message, "cursor");
    throw error;
  }
}

/** A sign-up refused before anything was written: what it asked for cannot be had (a coupon used up, …). */
export const signupConflict = (reason: string) => new ApiError(409, "signup_conflict", reason);

export const unauthorized = () =>
  new ApiError(401, "unauthorized", "a valid API key is required (Authorization: Bearer <key>)", undefined, {
    "www-authenticate": "Bearer",
  });

export const notFound = (
  what:
    | "subscription"
    | "charge"
    | "route"
    | "customer"
    | "webhook endpoint"
    | "price"
    | "invoice"
    | "credit note",
) => new ApiError(404, "not_found", `no such ${what}`);

export const methodNotAllowed = (allowed: readonly string[]) =>
  new ApiError(405, "method_not_allowed", "this method is not allowed here", undefined, {
    allow: allowed.join(", "),
  });

export const unsupportedMediaType = () =>
  new ApiError(415, "unsupported_media_type", "the request body must be application/json", "Content-Type");

export const idempotencyKeyReused = () =>
  new ApiError(
    409,
    "idempotency_key_reused",
    "this Idempotency-Key was used with a different request",
    "Idempotency-Key",
  );

/** Seconds to wait before repeating a request whose Idempotency-Key is still in use. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 5;

export const requestInProgress = () =>
  new ApiError(
    409,
    "request_in_progress",
    "a request with this Idempotency-Key is still being processed; repeat it later",
    "Idempotency-Key",
    { "retry-after": String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
  );

export const subscriptionCanceled = () =>
  new ApiError(409, "subscription_canceled", "the subscription is canceled");

export const notRefundable = (reason: string) => new ApiError(422, "not_refundable", reason);

/** Card rescodes of the non-ui payment, and the request field each one is about. */
const CARD_FIELD_OF_RESCODE: Readonly<Record<string, string>> = {
  HE00: "card.number",
  HE01: "card.expiry",
  HE02: "card.cvc",
};

const retryLater = { "retry-after": String(RETRY_AFTER_SECONDS) };

/** A gateway refusal. `unknown` lands here only for changes nothing tracks; tracked ones answer 202 (accepted). */
export function gatewayFailure(failure: Failure): ApiError {
  switch (failure.kind) {
    case "declined": {
      const decline = declineView({
        rescode: failure.code,
        errcode: failure.errcode,
        reason: failure.reason,
      });
      const why = decline.message === undefined ? "" : `: ${decline.message}`;
      return new ApiError(422, failure.code, `the payment was declined${why}`, undefined, {}, decline);
    }
    case "invalid":
      // REQUEST: the gateway client refused to send it (our schema let through what the gateway's forbids).
      return failure.code === "REQUEST"
        ? new ApiError(422, "gateway_rejected_request", "the gateway's rules refuse this request")
        : new ApiError(
            422,
            failure.code,
            "the gateway refused the request",
            CARD_FIELD_OF_RESCODE[failure.code],
          );
    case "unavailable":
      return new ApiError(
        503,
        "gateway_unavailable",
        "the gateway is unavailable; try again later",
        undefined,
        retryLater,
      );
    case "unknown":
      return new ApiError(
        503,
        "gateway_outcome_unknown",
        "the gateway's answer was lost; the change may have been made; repeat the same request",
        undefined,
        retryLater,
      );
  }
}

/** 202: the operation was taken and its outcome is being settled; `view` is the resource as it stands. */
export function accepted(view: unknown): ApiResponse {
  return { status: 202, headers: {}, body: view };
}

/** A subscription change (adjust, cancel) that did not happen. */
export function changeFailure(result: Exclude<ChangeResult, { readonly kind: "changed" }>): ApiError {
  switch (result.kind) {
    case "not_found":
      return notFound("subscription");
    case "conflict":
      return new ApiError(409, "subscription_conflict", result.reason);
    case "refused":
      return gatewayFailure(result.failure);
  }
}

const INTERNAL: ErrorBody = { error: { code: "internal", message: "internal error" } };

/** The answer to anything thrown while serving a request. Only an unexpected error becomes a 500. */
export function toErrorResponse(error: unknown): ApiResponse {
  if (!(error instanceof ApiError)) return { status: 500, headers: {}, body: INTERNAL };
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.decline === undefined ? {} : { decline: error.decline }),
    },
  };
  return { status: error.status, headers: error.headers, body };
}
