import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import {
  type GatewayWebhookDeps,
  receiveGatewayWebhook as receive,
} from "../inbound/gateway-webhook-receipt";
import { type HttpRequest, jsonReply, rawBodyOf } from "../lambda/http-event";
import { logger, metrics } from "../lambda/observability";

const METRIC = {
  accepted: "GatewayWebhooksAccepted",
  duplicate: "GatewayWebhooksDuplicate",
  rejected: "GatewayWebhooksRejected",
  unreadable: "GatewayWebhooksUnreadable",
} as const;

/**
 * POST /webhooks/gateway (CHARGEBACK, PAYOUT_*): signature over the exact raw bytes, transmission-time window and
 * de-duplication, then the documented reply — {"rescode":"0000","resmsg":"Success"} (200) for a valid or already
 * seen delivery, {"rescode":"XXXX","resmsg":"signature_fail"} (401) for anything unsigned, tampered or stale.
 */
export async function run(
  request: HttpRequest,
  services: GatewayWebhookDeps,
): Promise<APIGatewayProxyStructuredResultV2> {
  const receipt = await receive({ rawBody: rawBodyOf(request), headers: request.headers ?? {} }, services);
  metrics.addMetric(METRIC[receipt.kind], MetricUnit.Count, 1);
  if (receipt.kind === "rejected") logger.warn("gateway webhook rejected", { reason: receipt.reason });
  if (receipt.kind === "unreadable")
    logger.error("signed gateway webhook unreadable", { reason: receipt.reason });
  return jsonReply(receipt.kind === "rejected" ? 401 : 200, receipt.reply);
}
