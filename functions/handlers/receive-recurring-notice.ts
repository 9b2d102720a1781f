import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { SubscriptionStore } from "../core/ports/billing-repository";
import type { CallbackDeps } from "../inbound/gateway-notices";
import { recurringNoticeIntake, recurringNoticeReply } from "../inbound/gateway-notices";
import { sameSecret } from "../inbound/same-secret";
import { formOrJsonBodyOf, type HttpRequest, jsonReply } from "../lambda/http-event";
import { logger, metrics } from "../lambda/observability";

/**
 * POST /webhooks/recurring?subscription_id=…&token=… (the recurring_noti_url we gave the gateway): a notice whose
 * token is not its plan's secret is a 404 before anything is queued or asked; otherwise our subscription and the
 * gateway's order are queued, and process-intake confirms the charge by retrieve.
 */
export async function run(
  request: HttpRequest,
  services: CallbackDeps & { readonly repository: SubscriptionStore },
): Promise<APIGatewayProxyStructuredResultV2> {
  const query = new URLSearchParams(request.rawQueryString);
  const subscriptionId = query.get("subscription_id") ?? undefined;
  const intake = recurringNoticeIntake(subscriptionId, formOrJsonBodyOf(request), services.clock.now());
  if (!intake.ok) return refused(400, intake.reason, recurringNoticeReply.refused(intake.reason));
  // The intake checked subscription_id: it is there.
  const subscription = await services.repository.getSubscription(subscriptionId ?? "");
  if (!sameSecret(query.get("token"), subscription?.notify_token))
    return refused(404, "unknown plan or token", recurringNoticeReply.refused("token"));
  await services.queue.send(intake.message);
  metrics.addMetric("RecurringNoticesQueued", MetricUnit.Count, 1);
  return jsonReply(200, recurringNoticeReply.received());
}

function refused(status: number, reason: string, body: object): APIGatewayProxyStructuredResultV2 {
  metrics.addMetric("RecurringNoticesRefused", MetricUnit.Count, 1);
  logger.warn("recurring notice refused", { reason });
  return jsonReply(status, body);
}
