import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerResult } from "aws-lambda";
import { checkAuthorization } from "../api/api-key";
import { logger, metrics } from "../lambda/observability";

/** The digests of the merchant API keys, read from their secret (cached by the reader). */
export interface AuthorizerDeps {
  readonly apiKeyDigests: () => Promise<readonly string[]>;
}

/**
 * The merchant API's Lambda authorizer (HTTP API, payload 2.0, simple responses): `Authorization: Bearer <key>`,
 * whose SHA-256 must match a digest in the secret. The key is never logged: only why a request was refused.
 */
export async function run(
  event: Pick<APIGatewayRequestAuthorizerEventV2, "headers" | "routeKey">,
  services: AuthorizerDeps,
): Promise<APIGatewaySimpleAuthorizerResult> {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === "authorization");
  const check = checkAuthorization(header?.[1], await services.apiKeyDigests());
  metrics.addMetric(check === "ok" ? "ApiKeyAccepted" : "ApiKeyRefused", MetricUnit.Count, 1);
  if (check !== "ok")
    logger.info("merchant API request refused", { routeKey: event.routeKey, reason: check });
  return { isAuthorized: check === "ok" };
}
