import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { type HttpResult, ok, serve } from "../api/http";
import { buildOpenApiDocument } from "../api/openapi";
import { defineHandler } from "../composition/lambda-entry";
import * as SERVICE_SETS from "../composition/service-sets";
import { headerOf } from "../runtime/http-event";
import { observedHandler } from "../runtime/lambda-handler";

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
export function getOpenApi(request: OpenApiRequest): Promise<HttpResult> {
  return serve(async () => ok(buildOpenApiDocument({ serverUrl: serverUrlOf(request) })));
}

export const definition = defineHandler(SERVICE_SETS.none, (event: OpenApiRequest) => getOpenApi(event));
// Nothing to compose: the handler stays free of the SDK clients the other functions build.
export const handler = observedHandler((event: OpenApiRequest) => getOpenApi(event));
