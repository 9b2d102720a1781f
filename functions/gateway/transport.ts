import pRetry from "p-retry";
import type { z } from "zod";
import {
  type CallKind,
  classifyRescode,
  type GatewayFailure,
  type GatewayResult,
  SUCCESS_RESCODE,
  success,
  type Unavailable,
  type Unknown,
} from "./result";
import { resultEnvelope } from "./schemas/primitives";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface HttpRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised as JSON when present. */
  readonly body?: unknown;
  readonly kind: CallKind;
  readonly timeoutMs: number;
}

/** The gateway answered: HTTP status and the body parsed as JSON. */
export interface HttpReply {
  readonly status: number;
  readonly body: unknown;
}

export type HttpResult =
  | { readonly ok: true; readonly reply: HttpReply }
  | { readonly ok: false; readonly failure: GatewayFailure };

export type FetchLike = typeof fetch;

// Errors raised before the request left this process: nothing can have happened at the gateway.
const CONNECT_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === "string" ? cause.code : undefined;
}

/** Maps a thrown fetch error to unavailable (never reached the gateway) or unknown (may have taken effect). */
export function classifyTransportError(error: unknown, kind: CallKind): Unavailable | Unknown {
  const code = errorCode(error);
  if (code && CONNECT_ERROR_CODES.has(code))
    return { kind: "unavailable", reason: `connection failed (${code})` };
  const name = (error as { name?: unknown } | undefined)?.name;
  const reason =
    name === "TimeoutError" || name === "AbortError"
      ? "timed out after sending"
      : `connection lost (${code ?? "reset"})`;
  return kind === "mutation" ? { kind: "unknown", reason } : { kind: "unavailable", reason };
}

/**
 * Status codes that end a call without the gateway's answer. 429 refuses the request before it is processed. A 5xx
 * proves nothing about a mutation — the gateway (or the proxy in front of it) may have committed it before failing —
 * so a mutation's outcome is unknown and only retrieve settles it; a read is simply asked again. Redirects are not
 * followed (a followed redirect turns a POST into a GET): a 3xx means a wrong base URL.
 */
function classifyHttpStatus(status: number, kind: CallKind): GatewayFailure | undefined {
  if (status >= 300 && status < 400) {
    return { kind: "invalid", code: `HTTP_${status}`, message: `HTTP ${status}: redirects are not followed` };
  }
  if (status === 429) return { kind: "unavailable", reason: `HTTP ${status}`, status };
  if (status >= 500) {
    return kind === "mutation"
      ? { kind: "unknown", reason: `HTTP ${status} after sending` }
      : { kind: "unavailable", reason: `HTTP ${status}`, status };
  }
  return undefined;
}

/** One JSON request over fetch, with a timeout; never throws for network trouble. */
export async function sendJson(request: HttpRequest, fetchImpl: FetchLike = fetch): Promise<HttpResult> {
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  if (request.body !== undefined) headers["content-type"] = "application/json; charset=UTF-8";
  let text: string;
  let status: number;
  try {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(request.timeoutMs),
      redirect: "manual",
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    return { ok: false, failure: classifyTransportError(error, request.kind) };
  }
  const statusFailure = classifyHttpStatus(status, request.kind);
  if (statusFailure) return { ok: false, failure: statusFailure };
  try {
    return { ok: true, reply: { status, body: text === "" ? undefined : JSON.parse(text) } };
  } catch {
    // A 4xx page that is not JSON is still a refusal of our request: the envelope check classifies it as invalid.
    if (status >= 400) return { ok: true, reply: { status, body: undefined } };
    const reason = `HTTP ${status} with a body that is not JSON`;
    return {
      ok: false,
      failure:
        request.kind === "mutation" ? { kind: "unknown", reason } : { kind: "unavailable", reason, status },
    };
  }
}

export interface ReadRetryOptions {
  readonly retries: number;
  readonly minDelayMs: number;
}

/**
 * Repeats a safe read while it comes back `unavailable`, with exponential backoff and jitter (p-retry).
 * Mutations must never go through here.
 */
export async function retryRead<T>(
  attempt: () => Promise<GatewayResult<T>>,
  options: ReadRetryOptions,
): Promise<GatewayResult<T>> {
  try {
    return await pRetry(
      async () => {
        const outcome = await attempt();
        if (outcome.kind === "unavailable") throw new StillUnavailable(outcome);
        return outcome;
      },
      {
        retries: options.retries,
        minTimeout: options.minDelayMs,
        factor: 2,
        randomize: true,
        // A programming error thrown by the attempt is not a reason to call the gateway again.
        shouldRetry: ({ error }) => error instanceof StillUnavailable,
      },
    );
  } catch (error) {
    if (error instanceof StillUnavailable) return error.outcome;
    throw error;
  }
}

/** Carries the last `unavailable` outcome through p-retry, which retries on thrown errors. */
class StillUnavailable extends Error {
  constructor(readonly outcome: Unavailable) {
    super(outcome.reason);
  }
}

/** How an API marks success, where it departs from "every reply carries rescode 0000 on success". */
export interface SuccessRule {
  /** Codes that mean success; default `["0000"]` (webhook management answers "SUCCESS"). */
  readonly successCodes?: readonly string[];
  /** A success may come without rescode (reconciliation answers H/D/T only): the response schema then decides. */
  readonly rescodeOptional?: boolean;
}

export interface RescodeCall<S extends z.ZodType> {
  readonly request: HttpRequest;
  /** Lenient schema of the success response. */
  readonly response: S;
  readonly retry: ReadRetryOptions;
  readonly fetchImpl?: FetchLike;
  readonly success?: SuccessRule;
}

/**
 * A call to an API that answers `{rescode, resmsg, …}` (payment, reconciliation, webhook management):
 * transport, rescode classification, lenient parse of the success body, and read retries.
 */
export function callRescodeApi<S extends z.ZodType>(
  call: RescodeCall<S>,
): Promise<GatewayResult<z.output<S>>> {
  return callJsonApi(call, (reply) =>
    interpretRescodeReply(reply, call.response, call.request.kind, call.success),
  );
}

export type JsonCall = Omit<RescodeCall<z.ZodType>, "response">;

/** Transport plus an API-specific reading of the answer; reads are retried while unavailable. */
export function callJsonApi<T>(
  call: JsonCall,
  interpret: (reply: HttpReply) => GatewayResult<T>,
): Promise<GatewayResult<T>> {
  const once = async (): Promise<GatewayResult<T>> => {
    const result = await sendJson(call.request, call.fetchImpl);
    return result.ok ? interpret(result.reply) : result.failure;
  };
  return call.request.kind === "read" ? retryRead(once, call.retry) : once();
}

/** Classifies an answered call by its envelope, then parses the success body. */
export function interpretRescodeReply<S extends z.ZodType>(
  reply: HttpReply,
  schema: S,
  kind: CallKind,
  rule: SuccessRule = {},
): GatewayResult<z.output<S>> {
  const envelope = resultEnvelope.safeParse(reply.body);
  if (envelope.success) {
    const { rescode, resmsg, errcode } = envelope.data;
    const successCodes = rule.successCodes ?? [SUCCESS_RESCODE];
    if (!successCodes.includes(rescode)) return classifyRescode(rescode, resmsg, kind, errcode);
  } else if (!rule.rescodeOptional || reply.status >= 400) {
    return classifyMissingEnvelope(reply.status, "rescode", kind);
  }
  const parsed = schema.safeParse(reply.body, { reportInput: false });
  return parsed.success ? success(parsed.data) : classifyUnreadableSuccess(parsed.error, kind);
}

/** An answer without the API's result code: our fault on 4xx; otherwise the gateway may or may not have acted. */
export function classifyMissingEnvelope(status: number, codeField: string, kind: CallKind): GatewayFailure {
  const reason = `HTTP ${status} without ${codeField}`;
  if (status >= 400) return { kind: "invalid", code: `HTTP_${status}`, message: reason };
  return kind === "mutation" ? { kind: "unknown", reason } : { kind: "unavailable", reason };
}

/** The gateway said it succeeded but the body is unreadable: for a mutation, only retrieve can tell what happened. */
export function classifyUnreadableSuccess(error: z.ZodError, kind: CallKind): GatewayFailure {
  const issue = error.issues[0];
  const reason = `unreadable success response (${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""})`;
  return kind === "mutation"
    ? { kind: "unknown", reason }
    : { kind: "invalid", code: "RESPONSE", message: reason };
}
