import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { type HttpResult, ok, serve } from "../api/http";
import { buildOpenApiDocument } from "../api/openapi";
import { observedHandler } from "../runtime/lambda-handler";

/** Where the API is served, as API Gateway saw the request (a named stage prefixes the paths). */
function serverUrlOf({ domainName, stage }: APIGatewayProxyEventV2["requestContext"]): string | undefined {
  if (!domainName) return undefined;
  return stage && stage !== "$default" ? `https://${domainName}/${stage}` : `https://${domainName}`;
}

/** GET /openapi.json, without authorization: the merchant API's OpenAPI 3.1 document. No variables. */
export function getOpenApi(request: Pick<APIGatewayProxyEventV2, "requestContext">): Promise<HttpResult> {
  return serve(async () => ok(buildOpenApiDocument({ serverUrl: serverUrlOf(request.requestContext) })));
}

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) => getOpenApi(event));
