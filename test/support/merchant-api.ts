import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  Context,
} from "aws-lambda";
import { z } from "zod";
import { createDynamoDbIdempotencyStore } from "../../functions/adapters/dynamodb/dynamodb-idempotency-store";
import { MERCHANT_API_ROUTES } from "../../functions/api/merchant-api-routes";
import { errorBody } from "../../functions/api/merchant-api-views";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../local/aws/dynamodb-emulator";
import { apiGatewayEvent, authorizerEvent, matchPath } from "../../local/lambda/api-gateway-event";
import { stubContext } from "../../local/lambda/lambda-context";
import type { BillingStack } from "../../local/stack/billing-stack";

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

/** The API Gateway v2 event of a call; headers lower-cased as API Gateway delivers them. */
/** The path of a request target, without its query string. */
const pathOf = (target: string) => target.split("?")[0] ?? target;

const routeOf = (method: string, target: string) =>
  MERCHANT_API_ROUTES.find((entry) => entry.method === method && matchPath(entry.path, pathOf(target)));

export function apiEvent(method: string, path: string, call: ApiCall = {}): APIGatewayProxyEventV2 {
  const route = routeOf(method, path);
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
    host: "abc123defg.execute-api.us-east-1.amazonaws.com",
    "user-agent": "merchant-backend/1.0",
    ...(call.apiKey === undefined ? {} : { authorization: `Bearer ${call.apiKey}` }),
    ...(call.idempotencyKey === undefined ? {} : { "idempotency-key": call.idempotencyKey }),
  };
  for (const [name, value] of Object.entries(call.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = call.rawBody ?? (call.body === undefined ? "" : JSON.stringify(call.body));
  const match = route
    ? { routeKey: `${method} ${route.path}`, pathParameters: matchPath(route.path, pathOf(path)) }
    : { routeKey: "$default" };
  return apiGatewayEvent({ method, url: path, headers, body }, match, { base64: false });
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
export const errorOf = (answer: ApiAnswer) => errorBody.parse(answer.json).error;

/** The idempotency store on a stack's table, with its own plain DynamoDB client (close it after). */
export function stackIdempotency(stack: BillingStack) {
  const client = new DynamoDBClient({
    endpoint: stack.dynamo.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const idempotency = createDynamoDbIdempotencyStore({
    client,
    tableName: stack.variables().TABLE_NAME ?? "",
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
    const route = routeOf(method, path);
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
