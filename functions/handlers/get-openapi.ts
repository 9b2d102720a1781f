import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { type HttpResult, ok, serve } from "../api/http";
import { buildOpenApiDocument } from "../api/openapi";
import { headerOf } from "../lambda/http-event";

type OpenApiRequest = Pick<APIGatewayProxyEventV2, "requestContext" | "headers">;

/**
 * Where the API is served, as API Gateway saw the request (a named stage prefixes the paths). The scheme is the
 * X-Forwarded-Proto API Gateway adds (https), which local mode sets to http.
 */
function serverUrlOf(request: OpenApiRequest): string | undefined {
  const { domainName, stage } = request.requestContext;
  if (!domainName) return undefined;
  const scheme = headerOf(request, "x-forwarded-proto") === "http" ? "http" : "https";
  return stage && stage !== "$default" ? `${scheme}://${domainName}/${stage}` : `${scheme}://${domainName}`;
}

/** GET /openapi.json, without authorization: the merchant API's OpenAPI 3.1 document. No variables. */
export function run(request: OpenApiRequest): Promise<HttpResult> {
  return serve(async () => ok(buildOpenApiDocument({ serverUrl: serverUrlOf(request) })));
}
