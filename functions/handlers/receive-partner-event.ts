import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { CallbackDeps } from "../inbound/gateway-notices";
import { partnerEventIntake, partnerEventReply } from "../inbound/gateway-notices";
import { type HttpRequest, jsonBodyOf, jsonReply } from "../lambda/http-event";
import { logger, metrics } from "../lambda/observability";

const received = () => jsonReply(200, partnerEventReply.received());

/**
 * POST /webhooks/partner: a PAYMENT_COMPLETED event is queued as a hint (no signature is documented, so nothing
 * in it is trusted: process-intake confirms it by retrieve); other event types are acknowledged and dropped.
 */
export async function run(
  request: HttpRequest,
  services: CallbackDeps,
): Promise<APIGatewayProxyStructuredResultV2> {
  const intake = partnerEventIntake(jsonBodyOf(request), services.clock.now());
  if (intake.ok === "ignored") {
    metrics.addMetric("PartnerEventsIgnored", MetricUnit.Count, 1);
    logger.info("partner event ignored", { eventType: intake.eventType });
    return received();
  }
  if (!intake.ok) {
    metrics.addMetric("PartnerEventsRefused", MetricUnit.Count, 1);
    logger.warn("partner event refused", { reason: intake.reason });
    return jsonReply(400, partnerEventReply.refused(intake.reason));
  }
  await services.queue.send(intake.message);
  metrics.addMetric("PartnerEventsQueued", MetricUnit.Count, 1);
  return received();
}
