import type { z } from "zod";
import { type GatewayConfig, type GatewayConfigInput, gatewayConfigSchema } from "./config";
import type { CallKind, GatewayResult } from "./result";
import { callRescodeApi, type FetchLike, type HttpMethod, type SuccessRule } from "./transport";

/** What every endpoint client needs: validated configuration, the HTTP function and the clock. */
export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly fetchImpl: FetchLike;
  /** Every time comes from here, so tests and local mode can move it. */
  readonly now: () => Date;
}

export interface GatewayContextOptions {
  readonly fetchImpl?: FetchLike;
  readonly now?: () => Date;
}

export function createGatewayContext(
  config: GatewayConfigInput,
  options: GatewayContextOptions = {},
): GatewayContext {
  return {
    config: gatewayConfigSchema.parse(config),
    fetchImpl: options.fetchImpl ?? fetch,
    now: options.now ?? (() => new Date()),
  };
}

/** `Basic base64(apiKey + ":")`: the API key as user name, empty password. */
export function basicAuthorization(apiKey: string): string {
  return `Basic ${Buffer.from(`${apiKey}:`).toString("base64")}`;
}

export interface MerchantCall<S extends z.ZodType> {
  readonly baseUrl: string;
  readonly path: string;
  readonly method?: HttpMethod;
  readonly body?: unknown;
  readonly kind: CallKind;
  readonly response: S;
  readonly success?: SuccessRule;
}

/** A Basic-authenticated call to the payment, reconciliation or webhook management API. */
export function callMerchantApi<S extends z.ZodType>(
  context: GatewayContext,
  call: MerchantCall<S>,
): Promise<GatewayResult<z.output<S>>> {
  const { config } = context;
  return callRescodeApi({
    request: {
      method: call.method ?? "POST",
      url: joinUrl(call.baseUrl, call.path),
      headers: { authorization: basicAuthorization(config.apiKey) },
      body: call.body,
      kind: call.kind,
      timeoutMs: config.timeoutMs,
    },
    response: call.response,
    retry: { retries: config.readRetries, minDelayMs: config.readRetryMinDelayMs },
    fetchImpl: context.fetchImpl,
    success: call.success,
  });
}

/** Appends an absolute API path to a base URL that may itself carry a path prefix. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}
