import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { z } from "zod";
import { headerOf, rawBodyOf, type HttpRequest as WebhookHttpRequest } from "../lambda/http-event";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { type ApiResponse, parseInput, readJsonBody, toErrorResponse, unsupportedMediaType } from "./errors";

// The HTTP plumbing every merchant API handler shares (API Gateway HTTP API, payload 2.0): reading the parts of a
// request through their schemas, and turning an answer — or anything thrown — into the proxy result.

/** What the merchant API handlers read of the v2 event (the webhook receivers' fields, route and path too). */
export type HttpRequest = WebhookHttpRequest & Pick<APIGatewayProxyEventV2, "routeKey" | "pathParameters">;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export const ok = (body: unknown): ApiResponse => ({ status: 200, headers: {}, body });
export const created = (body: unknown): ApiResponse => ({ status: 201, headers: {}, body });

export function pathOf<T extends z.ZodType>(request: HttpRequest, schema: T): z.output<T> {
  return parseInput(schema, request.pathParameters ?? {});
}

/** The query string's parameters through their schema; a 400 names the parameter. */
export function queryOf<T extends z.ZodType>(request: HttpRequest, schema: T): z.output<T> {
  return parseInput(schema, request.queryStringParameters ?? {});
}

/** `application/json`, with or without parameters (charset). */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The JSON body through its schema; a 400 names the field (or says the body is not JSON). A body sent under another
 * media type (or none) is a 415 before it is read: what a form or a text/plain request says is never acted on.
 */
export function bodyOf<T extends z.ZodType>(request: HttpRequest, schema: T): z.output<T> {
  const text = rawBodyOf(request).toString("utf8");
  if (text.trim() !== "" && !JSON_MEDIA_TYPE.test(headerOf(request, "content-type")?.trim() ?? ""))
    throw unsupportedMediaType();
  return parseInput(schema, readJsonBody(text));
}

export function toHttpResult({ status, headers, body }: ApiResponse): HttpResult {
  return {
    statusCode: status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * Serves one request: its answer, or the error answer of whatever it threw. An unexpected error is logged (through
 * the redacting logger) and answered with a generic 500 that carries nothing of it.
 */
export async function serve(handle: () => Promise<ApiResponse>): Promise<HttpResult> {
  const answer = await handle().catch((error: unknown) => {
    const failure = toErrorResponse(error);
    if (failure.status === 500) logger.error("request failed", { error });
    return failure;
  });
  countAnswer(answer.status);
  return toHttpResult(answer);
}

const ANSWER_METRICS = ["Answers2xx", "Answers4xx", "Answers5xx"] as const;

/** One datapoint per class and invocation (zeros included, so an alarm on Answers5xx never lacks data). */
export function countAnswer(status: number): void {
  const counts = new MetricCounts(ANSWER_METRICS);
  if (status >= 500) counts.add("Answers5xx");
  else if (status >= 400) counts.add("Answers4xx");
  else counts.add("Answers2xx");
  counts.putInto(metrics);
}
