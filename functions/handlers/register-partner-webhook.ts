import {
  ensurePartnerWebhook,
  type PartnerWebhookSetup,
  type PartnerWebhookSetupDeps,
} from "../core/partner/partner-webhook-setup";
import { logger } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";

/**
 * After each deploy (a CDK trigger) and daily: the merchant's PAYMENT_COMPLETED subscription to
 * <PUBLIC_WEBHOOK_BASE_URL>/partner exists and is active. Idempotent.
 */
export async function run(event: unknown, services: PartnerWebhookSetupDeps): Promise<PartnerWebhookSetup> {
  const invocation = scheduledEventSchema.parse(event);
  const setup = await ensurePartnerWebhook(services);
  if (setup.kind === "failed") throw new Error(`partner webhook set-up failed: ${setup.reason}`);
  logger.info("partner webhook checked", { ...invocation, ...setup, endpointUrl: services.endpointUrl });
  return setup;
}
