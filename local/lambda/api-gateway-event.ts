import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2 } from "aws-lambda";

// HTTP requests as API Gateway (HTTP API, payload format 2.0) hands them to Lambda: the local router and the tests
// that invoke handlers build their events here, so both see what AWS delivers.

export interface HttpRequestShape {
  readonly method: string;
  /** Path and query string. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: string | Buffer;
}

export interface RouteMatch {
  /** "POST /v1/subscriptions/{id}/charges", or "$default" when no route matched. */
  readonly routeKey: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
}

const API = { accountId: "123456789012", apiId: "local", stage: "$default" } as const;

/** Content types whose bodies API Gateway passes as text; any other body arrives Base64-encoded. */
const TEXT_CONTENT = /^(text\/|application\/(json|x-www-form-urlencoded|xml|[\w.+-]+\+json)\b)/i;

/** A route template (`/v1/subscriptions/{id}`) matched against a concrete path; its path parameters if it fits. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return undefined;
  try {
    return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? "")]));
  } catch {
    // A malformed escape (%E0%A4%A) matches no route, as on API Gateway.
    return undefined;
  }
}

/** `dd/MMM/yyyy:HH:mm:ss +0000`, the requestContext.time format. */
function requestTime(at: Date): string {
  const [weekdayless, time] = [at.toUTCString().slice(5, 16), at.toISOString().slice(11, 19)];
  return `${weekdayless.replaceAll(" ", "/")}:${time} +0000`;
}

/**
 * The v2 event of a request: header names lower-cased and repeated values joined with commas, the query string
 * parsed, the body as text for text content types and Base64 otherwise (`base64` forces either), as API Gateway does.
 */
export function apiGatewayEvent(
  request: HttpRequestShape,
  route: RouteMatch,
  options: { readonly base64?: boolean; readonly now?: Date; readonly sourceIp?: string } = {},
): APIGatewayProxyEventV2 {
  const target = new URL(request.url, "http://localhost");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = typeof value === "string" ? value : value.join(",");
  }
  const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, "utf8");
  const base64 = options.base64 ?? !TEXT_CONTENT.test(headers["content-type"] ?? "");
  const method = request.method.toUpperCase();
  const now = options.now ?? new Date();
  const domainName = headers.host ?? "localhost";
  return {
    version: "2.0",
    routeKey: route.routeKey,
    rawPath: target.pathname,
    rawQueryString: target.search.slice(1),
    headers,
    ...(target.search === "" ? {} : { queryStringParameters: Object.fromEntries(target.searchParams) }),
    requestContext: {
      ...API,
      domainName,
      domainPrefix: domainName.split(".")[0] ?? domainName,
      http: {
        method,
        path: target.pathname,
        protocol: "HTTP/1.1",
        sourceIp: options.sourceIp ?? "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(route.pathParameters && Object.keys(route.pathParameters).length > 0
      ? { pathParameters: { ...route.pathParameters } }
      : {}),
    ...(bytes.length === 0 ? {} : { body: bytes.toString(base64 ? "base64" : "utf8") }),
    isBase64Encoded: bytes.length > 0 && base64,
  };
}

/** The Lambda authorizer's event for a request (identity source: the Authorization header). */
export function authorizerEvent(request: APIGatewayProxyEventV2): APIGatewayRequestAuthorizerEventV2 {
  const authorization = request.headers.authorization;
  return {
    version: "2.0",
    type: "REQUEST",
    routeArn: `arn:aws:execute-api:us-east-1:${API.accountId}:${API.apiId}/${API.stage}/${request.routeKey.replace(" ", "")}`,
    identitySource: authorization === undefined ? [] : [authorization],
    routeKey: request.routeKey,
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    cookies: [],
    headers: request.headers,
    requestContext: request.requestContext,
    ...(request.pathParameters ? { pathParameters: request.pathParameters } : {}),
  };
}
