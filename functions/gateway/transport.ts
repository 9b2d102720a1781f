import pRetry, { AbortError } from "p-retry";
import type { z } from "zod";
import {
  type CallKind,
  classifyRescode,
  type GatewayOutcome,
  type Unavailable,
  type Unknown,
  success,
} from "./outcome";
import { resultEnvelope, SUCCESS_RESCODE } from "./schemas/primitives";

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

export type HttpResult = { readonly ok: true; readonly reply: HttpReply } | { readonly ok: false; readonly failure: Unavailable | Unknown };

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
  if (code && CONNECT_ERROR_CODES.has(code)) return { kind: "unavailable", reason: `connection failed (${code})` };
  const name = (error as { name?: unknown } | undefined)?.name;
  const reason =
    name === "TimeoutError" || name === "AbortError" ? "timed out after sending" : `connection lost (${code ?? "reset"})`;
  return kind === "mutation" ? { kind: "unknown", reason } : { kind: "unavailable", reason };
}

/**
 * Status codes that say the request was not processed. 502/504 come from a proxy that may already have forwarded
 * the request, so on a mutation they are treated as unknown.
 */
function classifyHttpStatus(status: number, kind: CallKind): Unavailable | Unknown | undefined {
  if (status === 429 || status === 500 || status === 503) return { kind: "unavailable", reason: `HTTP ${status}`, status };
  if (status >= 500) {
    return kind === "mutation"
      ? { kind: "unknown", reason: `HTTP ${status} from an intermediary` }
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
    const reason = `HTTP ${status} with a body that is not JSON`;
    return {
      ok: false,
      failure: request.kind === "mutation" && status < 400 ? { kind: "unknown", reason } : { kind: "unavailable", reason, status },
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
  attempt: () => Promise<GatewayOutcome<T>>,
  options: ReadRetryOptions,
): Promise<GatewayOutcome<T>> {
  let last: GatewayOutcome<T> | undefined;
  try {
    return await pRetry(
      async () => {
        last = await attempt();
        if (last.kind === "unavailable") throw new Error(last.reason);
        return last;
      },
      { retries: options.retries, minTimeout: options.minDelayMs, factor: 2, randomize: true },
    );
  } catch (error) {
    if (last) return last;
    throw error instanceof AbortError ? error.cause : error;
  }
}

export interface RescodeCall<S extends z.ZodType> {
  readonly request: HttpRequest;
  /** Lenient schema of the success response. */
  readonly response: S;
  readonly retry: ReadRetryOptions;
  readonly fetchImpl?: FetchLike;
}

/**
 * A call to an API that answers `{rescode, resmsg, …}` (payment, reconciliation, webhook management):
 * transport, rescode classification, lenient parse of the success body, and read retries.
 */
export function callRescodeApi<S extends z.ZodType>(call: RescodeCall<S>): Promise<GatewayOutcome<z.output<S>>> {
  const once = async (): Promise<GatewayOutcome<z.output<S>>> => {
    const result = await sendJson(call.request, call.fetchImpl);
    if (!result.ok) return result.failure;
    return interpretRescodeReply(result.reply, call.response, call.request.kind);
  };
  return call.request.kind === "read" ? retryRead(once, call.retry) : once();
}

/** Classifies an answered call by its envelope, then parses the success body. */
export function interpretRescodeReply<S extends z.ZodType>(
  reply: HttpReply,
  schema: S,
  kind: CallKind,
): GatewayOutcome<z.output<S>> {
  const envelope = resultEnvelope.safeParse(reply.body);
  if (!envelope.success) {
    const reason = `HTTP ${reply.status} without rescode`;
    if (reply.status >= 400) return { kind: "invalid", code: `HTTP_${reply.status}`, message: reason };
    return kind === "mutation" ? { kind: "unknown", reason } : { kind: "unavailable", reason };
  }
  const { rescode, resmsg } = envelope.data;
  if (rescode !== SUCCESS_RESCODE) return classifyRescode(rescode, resmsg, kind);
  const parsed = schema.safeParse(reply.body, { reportInput: false });
  if (parsed.success) return success(parsed.data);
  // The gateway said it succeeded but the body is unreadable: for a mutation, only retrieve can tell what happened.
  const issue = parsed.error.issues[0];
  const reason = `unreadable success response (${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""})`;
  return kind === "mutation" ? { kind: "unknown", reason } : { kind: "invalid", code: "RESPONSE", message: reason };
}
