import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { recurringNoticeIntake } from "../core/intake-messages";
import { webhookAckReply } from "../gateway/webhook-signature";
import { formOrJsonBodyOf, type HttpRequest, jsonReply } from "../runtime/http-event";
import { getIntakeReceiverServices, type IntakeReceiverServices } from "../runtime/intake-services";
import { observedHandler } from "../runtime/lambda-handler";
import { logger, metrics } from "../runtime/observability";

/**
 * POST /webhooks/recurring?subscription_id=… (the recurring_noti_url we gave the gateway): queues our subscription
 * and the gateway's order_id; process-intake confirms the charge by retrieve. Variables: intakeEnvironment.
 */
export async function receiveRecurringNotice(
  request: HttpRequest,
  services: IntakeReceiverServices,
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

export const handler = observedHandler(async (event: APIGatewayProxyEventV2) =>
  receiveRecurringNotice(event, await getIntakeReceiverServices()),
);
