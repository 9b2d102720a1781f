import type { z } from "zod";
import { type GatewayContext, joinUrl } from "./context";
import { type CallKind, type GatewayResult, success } from "./result";
import { PARTNER_SUCCESS_CODE, partnerEnvelope } from "./schemas/partner";
import {
  callJsonApi,
  classifyMissingEnvelope,
  classifyUnreadableSuccess,
  type HttpMethod,
  type HttpReply,
} from "./transport";

/**
 * Classifies a partner answer by its `{code, message, data}` envelope, then parses the success body. Any code but
 * CMN_0000 is a refusal of our request (the seed documents no transient codes).
 */
export function interpretPartnerReply<S extends z.ZodType>(
  reply: HttpReply,
  schema: S,
  kind: CallKind,
): GatewayResult<z.output<S>> {
  const envelope = partnerEnvelope.safeParse(reply.body);
  if (!envelope.success) return classifyMissingEnvelope(reply.status, "code", kind);
  const { code, message = "" } = envelope.data;
  if (code !== PARTNER_SUCCESS_CODE) return { kind: "invalid", code, message };
  const parsed = schema.safeParse(reply.body, { reportInput: false });
  return parsed.success ? success(parsed.data) : classifyUnreadableSuccess(parsed.error, kind);
}

export interface PartnerCall<S extends z.ZodType> {
  /** Absolute API path, already URL-encoded. */
  readonly path: string;
  readonly method: HttpMethod;
  /** Authentication: `apiKey` for the token, `authorization: Bearer …` for the rest. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly kind: CallKind;
  /** Lenient schema of the whole success body. */
  readonly response: S;
}

/** One call to the partner API; reads are retried while unavailable, mutations never. */
export function callPartnerApi<S extends z.ZodType>(
  context: GatewayContext,
  call: PartnerCall<S>,
): Promise<GatewayResult<z.output<S>>> {
  const { config } = context;
  return callJsonApi(
    {
      request: {
        method: call.method,
        url: joinUrl(config.partnerBaseUrl, call.path),
        headers: call.headers,
        body: call.body,
        kind: call.kind,
        timeoutMs: config.timeoutMs,
      },
      retry: { retries: config.readRetries, minDelayMs: config.readRetryMinDelayMs },
      fetchImpl: context.fetchImpl,
    },
    (reply) => interpretPartnerReply(reply, call.response, call.kind),
  );
}

/** The payload of a successful answer. */
export function dataOf<T>(outcome: GatewayResult<{ readonly data: T }>): GatewayResult<T> {
  return outcome.kind === "success" ? success(outcome.value.data) : outcome;
}
