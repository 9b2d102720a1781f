import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  Context,
} from "aws-lambda";
import { z } from "zod";
import { createDynamoDbIdempotencyStore } from "../../functions/adapters/dynamodb-idempotency-store";
import { MERCHANT_API_ROUTES } from "../../functions/api/merchant-api-routes";
import type { BillingStack } from "../../local/billing-stack";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../local/dynamodb-emulator";
import { stubContext } from "./lambda-context";

// The merchant API as API Gateway (HTTP API, payload 2.0) presents it to Lambda: request events of the real shape,
// the Lambda authorizer in front of the bearer routes, and the proxy result read back.

export interface ApiCall {
  readonly body?: unknown;
  /** A raw body, sent as is (malformed JSON). */
  readonly rawBody?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly idempotencyKey?: string;
  /** Bearer key; omitted: no Authorization header. */
  readonly apiKey?: string;
}

/** A route template (`/v1/subscriptions/{id}`) matched against a concrete path; the path parameters if it fits. */
function matchPath(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return undefined;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? "")]));
}

const REQUEST_CONTEXT = {
  accountId: "123456789012",
  apiId: "abc123defg",
  domainName: "abc123defg.execute-api.us-east-1.amazonaws.com",
  domainPrefix: "abc123defg",
  requestId: "JKJaXmPLvHcESHA=",
  stage: "$default",
  time: "01/Mar/2027:10:00:00 +0000",
  timeEpoch: 1803981600000,
};

/** The API Gateway v2 event of a call; headers lower-cased as API Gateway delivers them. */
export function apiEvent(method: string, path: string, call: ApiCall = {}): APIGatewayProxyEventV2 {
  const route = MERCHANT_API_ROUTES.find((entry) => entry.method === method && matchPath(entry.path, path));
  const pathParameters = route ? matchPath(route.path, path) : undefined;
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
    host: REQUEST_CONTEXT.domainName,
    "user-agent": "merchant-backend/1.0",
    ...(call.apiKey === undefined ? {} : { authorization: `Bearer ${call.apiKey}` }),
    ...(call.idempotencyKey === undefined ? {} : { "idempotency-key": call.idempotencyKey }),
  };
  for (const [name, value] of Object.entries(call.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  const routeKey = route ? `${method} ${route.path}` : "$default";
  return {
    version: "2.0",
    routeKey,
    rawPath: path,
    rawQueryString: "",
    headers,
    requestContext: {
      ...REQUEST_CONTEXT,
      routeKey,
      http: {
        method,
        path,
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.7",
        userAgent: "merchant-backend/1.0",
      },
    },
    ...(pathParameters && Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
  };
}

/** The authorizer's event for the same call (identity source: the Authorization header). */
export function authorizerEvent(request: APIGatewayProxyEventV2): APIGatewayRequestAuthorizerEventV2 {
  const authorization = request.headers.authorization;
  return {
    version: "2.0",
    type: "REQUEST",
    routeArn: `arn:aws:execute-api:us-east-1:123456789012:abc123defg/$default/${request.routeKey.replace(" ", "")}`,
    identitySource: authorization === undefined ? [] : [authorization],
    routeKey: request.routeKey,
    rawPath: request.rawPath,
    rawQueryString: "",
    cookies: [],
    headers: request.headers,
    requestContext: request.requestContext,
    ...(request.pathParameters ? { pathParameters: request.pathParameters } : {}),
  };
}

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent. */
  readonly text: string;
  readonly json: unknown;
}

const resultSchema = z.object({
  statusCode: z.number(),
  headers: z.record(z.string(), z.coerce.string()).default({}),
  body: z.string().default(""),
});

export function answerOf(result: APIGatewayProxyStructuredResultV2): ApiAnswer {
  const { statusCode, headers, body } = resultSchema.parse(result);
  return { status: statusCode, headers, text: body, json: body === "" ? undefined : JSON.parse(body) };
}

/** The error body's fields, for assertions. */
export const errorOf = (answer: ApiAnswer) =>
  z
    .object({ error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }) })
    .parse(answer.json).error;

/** The idempotency store on a stack's table, with its own plain DynamoDB client (close it after). */
export function stackIdempotency(stack: BillingStack) {
  const client = new DynamoDBClient({
    endpoint: stack.dynamo.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const idempotency = createDynamoDbIdempotencyStore({
    client,
    tableName: stack.environment().TABLE_NAME ?? "",
  });
  return { idempotency, close: () => client.destroy() };
}

type Wrapped<E, R> = (event: E, context: Context) => Promise<R>;

export interface GatewayRoutes {
  readonly authorizer: Wrapped<APIGatewayRequestAuthorizerEventV2, { isAuthorized: boolean }>;
  /** By operationId of MERCHANT_API_ROUTES (and "getOpenApi" for GET /openapi.json). */
  readonly handlers: Readonly<
    Record<string, Wrapped<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>>
  >;
}

/**
 * API Gateway in front of the wrapped Lambda handlers: the authorizer runs first on bearer routes (a denial is
 * answered 401 with the API's error body, as local mode does; API Gateway itself answers 401 without an
 * Authorization header and 403 on a denial), then the route's handler gets the proxy event.
 */
export function apiGateway(routes: GatewayRoutes) {
  return async (method: string, path: string, call: ApiCall = {}): Promise<ApiAnswer> => {
    if (method === "GET" && path === "/openapi.json") {
      const handler = routes.handlers.getOpenApi;
      if (!handler) throw new Error("no getOpenApi handler");
      return answerOf(await handler(apiEvent(method, path, call), stubContext("get-openapi")));
    }
    const route = MERCHANT_API_ROUTES.find((entry) => entry.method === method && matchPath(entry.path, path));
    const handler = route && routes.handlers[route.operationId];
    if (!route || !handler) throw new Error(`no handler for ${method} ${path}`);
    const event = apiEvent(method, path, call);
    if (route.auth === "bearer") {
      const verdict = await routes.authorizer(authorizerEvent(event), stubContext("authorize-merchant"));
      if (!verdict.isAuthorized) {
        const body = JSON.stringify({
          error: { code: "unauthorized", message: "a valid API key is required" },
        });
        return { status: 401, headers: { "www-authenticate": "Bearer" }, text: body, json: JSON.parse(body) };
      }
    }
    return answerOf(await handler(event, stubContext(route.operationId)));
  };
}
