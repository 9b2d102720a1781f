import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { defineHandler } from "../composition/handler-definition";
import { lambdaHandler } from "../composition/lambda-entry";
import type { ServicesOf } from "../composition/service-set";
import * as SERVICE_SETS from "../composition/service-sets";
import { recurringNoticeIntake } from "../core/intake-messages";
import { webhookAckReply } from "../gateway/webhook-signature";
import { formOrJsonBodyOf, type HttpRequest, jsonReply } from "../runtime/http-event";
import { logger, metrics } from "../runtime/observability";

/**
 * POST /webhooks/recurring?subscription_id=… (the recurring_noti_url we gave the gateway): queues our subscription
 * and the gateway's order_id; process-intake confirms the charge by retrieve.
 */
export async function receiveRecurringNotice(
  request: HttpRequest,
  services: ServicesOf<"intakeReceiver">,
): Promise<APIGatewayProxyStructuredResultV2> {
  const subscriptionId = new URLSearchParams(request.rawQueryString).get("subscription_id") ?? undefined;
  const intake = recurringNoticeIntake(subscriptionId, formOrJsonBodyOf(request), services.clock.now());
  if (!intake.ok) {
    metrics.addMetric("RecurringNoticesRefused", MetricUnit.Count, 1);
    logger.warn("recurring notice refused", { reason: intake.reason });
    return jsonReply(400, { rescode: "EC00", resmsg: `Invalid parameter: ${intake.reason}` });
  }
  await services.queue.send(intake.message);
  metrics.addMetric("RecurringNoticesQueued", MetricUnit.Count, 1);
  return jsonReply(200, webhookAckReply());
}

export const definition = defineHandler(SERVICE_SETS.intakeReceiver, receiveRecurringNotice);
export const handler = lambdaHandler(definition);
