import { type MailDeps, type ReminderReport, sendReminders } from "../core/delivery/customer-mail";
import type { ReminderIndex } from "../core/ports/mailer";
import { MetricCounts } from "../lambda/metric-counts";
import { logger, metrics } from "../lambda/observability";
import { scheduledEventSchema } from "../lambda/scheduled-event";

const REMINDER_METRICS = ["RemindersSent", "RemindersDuplicate"] as const;

/** Scheduled (daily): the mails a date calls for — a trial's end, a renewal ahead, a card about to expire. */
export async function run(
  event: unknown,
  services: MailDeps & { readonly reminders: ReminderIndex },
): Promise<ReminderReport> {
  const invocation = scheduledEventSchema.parse(event);
  const report = await sendReminders(services.clock.now(), services);
  logger.info("reminders sent", { ...invocation, ...report });
  const counts = new MetricCounts(REMINDER_METRICS);
  counts.add("RemindersSent", report.sent);
  counts.add("RemindersDuplicate", report.duplicates);
  counts.putInto(metrics);
  return report;
}
