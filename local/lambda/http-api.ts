import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { z } from "zod";
import { MERCHANT_API_ROUTES, OPENAPI_PATH } from "../../functions/api/merchant-api-routes";
import type { HttpRoute } from "../../functions/function-table";
import type { PageRoute } from "../../functions/pages/shared/page-routes";
import { apiGatewayEvent, authorizerEvent, matchPath } from "./api-gateway-event";
import type { LambdaFunctions } from "./lambda-functions";
import { invokeAsLambda, invokedFunctionOf } from "./lambda-invoke-api";

// API Gateway's HTTP API, locally: the deployed routes of the function table, each request turned into the v2
// event of its function, the merchant authorizer in front of the bearer routes, and the proxy result written back.
// The same server answers Lambda's Invoke API (lambda-invoke-api.ts) and local mode's own routes and pages.

/** A route served by local mode itself, not by a Lambda function (POST /local/clock, the try-it page). */
export type LocalRouteHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** A page of local mode's own (GET /try): no function of the table, no merchant API operation, never deployed. */
export interface LocalPage extends PageRoute {
  readonly serve: LocalRouteHandler;
}

interface Route extends HttpRoute {
  readonly target: { readonly function: string } | { readonly local: LocalRouteHandler };
}

/** API Gateway's own answers, which never reach a function. */
const GATEWAY_ANSWERS = {
  notFound: { statusCode: 404, body: JSON.stringify({ message: "Not Found" }) },
  tooLarge: { statusCode: 413, body: JSON.stringify({ message: "Request Entity Too Large" }) },
  internalError: { statusCode: 500, body: JSON.stringify({ message: "Internal Server Error" }) },
} satisfies Record<string, APIGatewayProxyStructuredResultV2>;

/** A refused bearer route: the merchant API's error body (README, Merchant API). */
export const UNAUTHORIZED_RESULT: APIGatewayProxyStructuredResultV2 = {
  statusCode: 401,
  headers: { "content-type": "application/json", "www-authenticate": "Bearer" },
  body: JSON.stringify({ error: { code: "unauthorized", message: "a valid API key is required" } }),
};

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const authorizerResult = z.object({ isAuthorized: z.boolean() });
const structuredResult = z.object({
  statusCode: z.number().int(),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  cookies: z.array(z.string()).optional(),
  body: z.string().optional(),
  isBase64Encoded: z.boolean().optional(),
});

export interface HttpApiOptions {
  readonly functions: LambdaFunctions;
  /** Local-only operations of MERCHANT_API_ROUTES, by operationId. */
  readonly localRoutes: Readonly<Record<string, LocalRouteHandler>>;
  /** Local mode's own pages (no authorizer, as our pages). */
  readonly localPages: readonly LocalPage[];
  /**
   * Local mode's OpenAPI document (its own routes too), served at GET /openapi.json in place of get-openapi's, whose
   * document is the deployed API's.
   */
  readonly openApiDocument?: LocalRouteHandler;
  /** The time events carry (the local clock). */
  readonly now: () => Date;
  readonly onError: (route: string, error: unknown) => void;
}

export class LocalHttpApi {
  readonly #routes: readonly Route[];
  readonly #authorizer: string | undefined;
  /** The $default route's function: what no route takes. */
  readonly #unmatched: string | undefined;

  constructor(private readonly options: HttpApiOptions) {
    const deployed = options.functions
      .withTrigger("http")
      .flatMap(({ spec, trigger }) =>
        trigger.routes.map((route) => ({ ...route, target: { function: spec.name } })),
      );
    const local = Object.entries(options.localRoutes).map(([operationId, handler]): Route => {
      const route = MERCHANT_API_ROUTES.find((entry) => entry.operationId === operationId && entry.localOnly);
      if (route === undefined) throw new Error(`${operationId} is not a local-only route`);
      const auth = route.auth === "bearer" ? "merchant" : "none";
      return { method: route.method, path: route.path, auth, target: { local: handler } };
    });
    const pages = options.localPages.map(
      ({ method, path, serve }): Route => ({ method, path, auth: "none", target: { local: serve } }),
    );
    const document = options.openApiDocument;
    const documentRoutes = document
      ? [{ method: "GET" as const, path: OPENAPI_PATH, auth: "none" as const, target: { local: document } }]
      : [];
    // The first match serves: local mode's document before get-openapi's.
    this.#routes = [...documentRoutes, ...deployed, ...local, ...pages];
    this.#authorizer = options.functions.withTrigger("authorizer")[0]?.spec.name;
    this.#unmatched = options.functions.withTrigger("unmatched")[0]?.spec.name;
  }

  /**
   * The Node server's clientError listener: a request Node cannot parse (an unknown method, a head over 16 KB) gets
   * a JSON answer as API Gateway gives, not Node's bare 400 without a body.
   */
  readonly clientErrorListener = (error: Error, socket: Duplex): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = "code" in error && error.code === "HPE_HEADER_OVERFLOW";
    const [status, message] = tooLarge ? ["431", "Request Header Fields Too Large"] : ["400", "Bad Request"];
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} ${message}\r\nconnection: close\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };

  /** The Node request listener. */
  readonly listener = (request: IncomingMessage, response: ServerResponse): void => {
    this.#serve(request)
      .catch((error: unknown) => {
        this.options.onError(`${request.method} ${request.url}`, error);
        return GATEWAY_ANSWERS.internalError;
      })
      .then((result) => writeResult(response, result));
  };

  async #serve(request: IncomingMessage): Promise<APIGatewayProxyStructuredResultV2> {
    const body = await readBody(request);
    if (body === undefined) return GATEWAY_ANSWERS.tooLarge;
    const method = (request.method ?? "GET").toUpperCase();
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const invoked = invokedFunctionOf(method, path);
    if (invoked !== undefined) return invokeAsLambda(this.options.functions, invoked, body);
    const found = this.#match(method, path);
    // API Gateway adds these; the scheme tells get-openapi which URL to print.
    const forwarded = {
      "x-forwarded-for": request.socket.remoteAddress ?? "127.0.0.1",
      "x-forwarded-port": String(request.socket.localPort ?? ""),
      "x-forwarded-proto": "http",
    };
    const eventOf = (routeKey: string, pathParameters: Record<string, string>) =>
      apiGatewayEvent(
        { method, url: request.url ?? "/", headers: { ...request.headers, ...forwarded }, body },
        { routeKey, pathParameters },
        { now: this.options.now(), sourceIp: request.socket.remoteAddress },
      );
    if (found === undefined) {
      // As API Gateway: the $default route takes what no route does, when the table has one.
      if (this.#unmatched === undefined) return GATEWAY_ANSWERS.notFound;
      return proxyResult(await this.options.functions.invoke(this.#unmatched, eventOf("$default", {})));
    }
    const { route, pathParameters } = found;
    const event = eventOf(`${route.method} ${route.path}`, pathParameters);
    if (route.auth === "merchant" && !(await this.#authorized(event))) return UNAUTHORIZED_RESULT;
    if ("local" in route.target) return route.target.local(event);
    const result = await this.options.functions.invoke(route.target.function, event);
    return proxyResult(result);
  }

  #match(method: string, path: string) {
    for (const route of this.#routes) {
      if (route.method !== method) continue;
      const pathParameters = matchPath(route.path, path);
      if (pathParameters !== undefined) return { route, pathParameters };
    }
    return undefined;
  }

  async #authorized(event: APIGatewayProxyEventV2): Promise<boolean> {
    // As API Gateway: a request without the identity source is refused without invoking the authorizer.
    if (event.headers.authorization === undefined) return false;
    if (this.#authorizer === undefined) throw new Error("the function table names no authorizer");
    const verdict = await this.options.functions.invoke(this.#authorizer, authorizerEvent(event));
    return authorizerResult.parse(verdict).isAuthorized;
  }
}

/** A function's proxy result; anything without a statusCode is a 200 JSON body, as API Gateway reads it. */
function proxyResult(result: unknown): APIGatewayProxyStructuredResultV2 {
  const structured = structuredResult.safeParse(result);
  if (structured.success) return structured.data;
  if (typeof result === "object" && result !== null && "statusCode" in result) {
    throw new Error("the function returned a malformed proxy result");
  }
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: typeof result === "string" ? result : JSON.stringify(result ?? null),
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = { "content-type": "application/json" };
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  if (result.cookies !== undefined && result.cookies.length > 0) headers["set-cookie"] = result.cookies;
  const body = Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8");
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}
