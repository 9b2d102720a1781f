import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { ServicesOf } from "../composition/service-set";
import type * as SERVICE_SETS from "../composition/service-sets";
import { statusCallbackIntake } from "../core/intake-messages";
import { webhookAckReply } from "../gateway/webhook-signature";
import { callbackQueryOf, type HttpRequest, jsonReply } from "../lambda/http-event";
import { logger, metrics } from "../lambda/observability";

/**
 * GET|POST /webhooks/status (the payment window's status_url). Queues the query string untouched and answers at
 * once; nothing changes here: process-intake verifies it with the gateway first.
 */
export async function run(
  request: HttpRequest,
  services: ServicesOf<typeof SERVICE_SETS.intakeReceiver>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const query = callbackQueryOf(request);
  const intake =
    query === undefined
      ? { ok: false as const, reason: "body is not a form or a JSON object of strings" }
      : statusCallbackIntake(query, services.clock.now());
  if (!intake.ok) {
    metrics.addMetric("StatusCallbacksRefused", MetricUnit.Count, 1);
    logger.warn("status callback refused", { reason: intake.reason });
    return jsonReply(400, { rescode: "EC00", resmsg: `Invalid parameter: ${intake.reason}` });
  }
  await services.queue.send(intake.message);
  metrics.addMetric("StatusCallbacksQueued", MetricUnit.Count, 1);
  return jsonReply(200, webhookAckReply());
}
