import * as z from "zod";
import { outboxEventSchema } from "../core/base/events";
import { type MailDeps, type MailOutcome, mailForEvent } from "../core/delivery/customer-mail";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { lazySchema } from "../shared/lazy-schema";

/** What an EventBridge rule hands its target: the envelope, the billing event as its detail. */
const busEventSchema = lazySchema(() =>
  z.looseObject({ "detail-type": z.string(), detail: outboxEventSchema }),
);

const MAIL_METRICS = ["MailsSent", "MailsDuplicate"] as const;

/**
 * The bus's billing events (a rule on the event types that can call for a mail): the customer's mail, sent once per
 * event however often the bus delivers it (README, Customer e-mails). A refused send throws, so the bus retries the
 * event, and its dead-letter queue keeps it after the last retry.
 */
export async function run(event: unknown, services: MailDeps): Promise<MailOutcome> {
  const { detail } = busEventSchema.parse(event);
  const outcome = await mailForEvent(detail, services);
  const counts = new MetricCounts(MAIL_METRICS);
  if (outcome.kind === "sent") counts.add("MailsSent");
  if (outcome.kind === "duplicate") counts.add("MailsDuplicate");
  counts.putInto(metrics);
  if (outcome.kind !== "none") logger.info("customer mail", { event_id: detail.event_id, ...outcome });
  return outcome;
}
