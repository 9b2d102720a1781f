import { type OutboxEvent, outboxEventSchema } from "../../functions/core/base/events";
import type { ChargeAttempt, Subscription } from "../../functions/core/base/model";
import type { KeptMail } from "../aws/ses-stand-in";

// The chaos run's account of the customer mails (README, Customer e-mails): the bus delivers events more than once
// and the mail service refuses some sends, yet no event may get two mails and no event that calls for one may end
// without it. Which event calls for a mail is read from what cannot change after it: a charge's line (a card check
// gets none) and whether the subscription had started.

export interface MailAccount {
  readonly sent: number;
  /** Events whose mail must have gone out (receipts and ends of started subscriptions) and did. */
  readonly owed: number;
  /** Mail ids, or events, with more than one mail (each a violation). */
  readonly sentTwice: readonly string[];
  /** Events that call for a mail with none sent, and events the mail function gave up on (each a violation). */
  readonly lost: readonly string[];
}

export function accountForMails(input: {
  readonly details: readonly string[];
  readonly mails: readonly KeptMail[];
  readonly attempts: readonly ChargeAttempt[];
  readonly subscriptions: readonly Subscription[];
  /** Events a bus rule's target gave up on. */
  readonly deadLetters: readonly string[];
}): MailAccount {
  const perId = new Map<string, number>();
  const perEvent = new Map<string, number>();
  for (const mail of input.mails) {
    const id = mail.mail_id ?? mail.message_id;
    perId.set(id, (perId.get(id) ?? 0) + 1);
    if (mail.event_id !== undefined) perEvent.set(mail.event_id, (perEvent.get(mail.event_id) ?? 0) + 1);
  }
  const sentTwice = [
    ...[...perId].filter(([, count]) => count > 1).map(([id, count]) => `${id} sent ${count} times`),
    ...[...perEvent]
      .filter(([, count]) => count > 1)
      .map(([id, count]) => `event ${id} mailed ${count} times`),
  ];
  const lines = new Map(input.attempts.map((attempt) => [attempt.order_id, attempt]));
  const started = new Set(
    input.subscriptions
      .filter((subscription) => subscription.period > 0 || subscription.trial_end !== undefined)
      .map((subscription) => subscription.subscription_id),
  );
  const events = new Map<string, OutboxEvent>();
  for (const detail of input.details) {
    const event = outboxEventSchema.parse(JSON.parse(detail));
    events.set(event.event_id, event);
  }
  const owed = [...events.values()].filter((event) => {
    if (event.type === "charge.succeeded") return lines.get(event.order_id)?.verification !== true;
    return event.type === "subscription.canceled" && started.has(event.subscription_id);
  });
  const lost = [
    ...owed
      .filter((event) => !perEvent.has(event.event_id))
      .map((event) => `${event.type} ${event.event_id} (${event.subscription_id}) without its mail`),
    ...input.deadLetters.map((id) => `event ${id}: the mail function gave up`),
  ];
  return { sent: input.mails.length, owed: owed.length, sentTwice, lost };
}
