import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { methodNotAllowed, notFound } from "../api/errors";
import { type HttpResult, serve } from "../api/http";
import { methodsOnPath } from "../api/merchant-api-routes";

/**
 * The merchant API's $default route: a request no route takes, answered in the merchant API's error envelope — 405
 * with Allow when its path is a route's under another method, 404 otherwise (API Gateway's own answer would be a bare
 * `{"message":"Not Found"}`).
 */
export function run(request: Pick<APIGatewayProxyEventV2, "rawPath">): Promise<HttpResult> {
  return serve(async () => {
    const allowed = methodsOnPath(request.rawPath);
    throw allowed.length > 0 ? methodNotAllowed(allowed) : notFound("route");
  });
}
