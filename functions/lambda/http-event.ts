import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";

// API Gateway HTTP API (payload 2.0) requests as the webhook receivers read them. The same shape is what local mode's
// router hands the handlers.

/** The fields of the v2 event the receivers read. */
export type HttpRequest = Pick<
  APIGatewayProxyEventV2,
  "rawQueryString" | "headers" | "body" | "isBase64Encoded" | "queryStringParameters"
> & { readonly requestContext: { readonly http: { readonly method: string } } };

/** The body's exact bytes: API Gateway Base64-encodes bodies it does not treat as text (isBase64Encoded). */
export function rawBodyOf(request: HttpRequest): Buffer {
  if (request.body === undefined) return Buffer.alloc(0);
  return Buffer.from(request.body, request.isBase64Encoded ? "base64" : "utf8");
}

/** A header's value, whatever the case of its name (API Gateway lower-cases them; local callers may not). */
export function headerOf(request: Pick<HttpRequest, "headers">, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(request.headers ?? {}))
    if (key.toLowerCase() === wanted) return value;
  return undefined;
}

const isJson = (request: HttpRequest) => /\bjson\b/i.test(headerOf(request, "content-type") ?? "");

/** The body parsed as JSON; undefined when it is empty or not JSON. */
export function jsonBodyOf(request: HttpRequest): unknown {
  const text = rawBodyOf(request).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as JSON when it says so, else as a form (an object of its fields). */
export function formOrJsonBodyOf(request: HttpRequest): unknown {
  if (isJson(request)) return jsonBodyOf(request);
  return Object.fromEntries(new URLSearchParams(rawBodyOf(request).toString("utf8")));
}

/**
 * The parameters a callback carries: the query string of a GET; for a POST the body — a form (the query string
 * itself, untouched) or a JSON object of strings (re-encoded in its key order) — or, without a body, the URL's
 * query string. undefined when a JSON body is not an object of strings.
 */
export function callbackQueryOf(request: HttpRequest): string | undefined {
  const body = rawBodyOf(request).toString("utf8");
  if (request.requestContext.http.method.toUpperCase() !== "POST" || body.trim() === "") {
    return request.rawQueryString;
  }
  if (!isJson(request)) return body;
  const json = jsonBodyOf(request);
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const entries = Object.entries(json);
  if (!entries.every((entry): entry is [string, string] => typeof entry[1] === "string")) return undefined;
  return new URLSearchParams(entries).toString();
}

export function jsonReply(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

export function textReply(statusCode: number, body: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { "content-type": "text/plain; charset=utf-8" }, body };
}
