import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { CallbackDeps } from "../inbound/gateway-notices";
import { statusCallbackIntake, statusCallbackReply } from "../inbound/gateway-notices";
import { callbackQueryOf, type HttpRequest, textReply } from "../lambda/http-event";
import { logger, metrics } from "../lambda/observability";

/**
 * GET|POST /webhooks/status (the payment window's status_url; the real gateway posts a form). Queues the result
 * untouched and answers at once, in the text the gateway expects; nothing changes here: process-intake verifies it
 * with the gateway first.
 */
export async function run(
  request: HttpRequest,
  services: CallbackDeps,
): Promise<APIGatewayProxyStructuredResultV2> {
  const query = callbackQueryOf(request);
  const intake =
    query === undefined
      ? { ok: false as const, reason: "body is not a form or a JSON object of strings" }
      : statusCallbackIntake(query, services.clock.now());
  if (!intake.ok) {
    metrics.addMetric("StatusCallbacksRefused", MetricUnit.Count, 1);
    logger.warn("status callback refused", { reason: intake.reason });
    return textReply(400, statusCallbackReply.refused(intake.reason));
  }
  await services.queue.send(intake.message);
  metrics.addMetric("StatusCallbacksQueued", MetricUnit.Count, 1);
  return textReply(200, statusCallbackReply.received);
}
