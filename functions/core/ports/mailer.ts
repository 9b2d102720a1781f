import type { ChargeAttempt, Subscription } from "../base/model";
import type { DueEntry } from "./billing-repository";

// The mail service and the indexes the date-driven mails are found by (README, Customer e-mails): what a mail tells
// as facts, which the mailer words in the customer's language.

export const MAIL_TEMPLATES = [
  "payment_failed",
  "card_expiring",
  "renewal_upcoming",
  "trial_ending",
  "receipt",
  "subscription_canceled",
] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

/** What one mail tells, as facts: the mailer words it. */
export interface CustomerMail {
  /** The mail's claim: one mail per id, ever. */
  readonly mail_id: string;
  readonly template: MailTemplate;
  /** The event it answers (the date-driven mails answer none). */
  readonly event_id?: string;
  readonly subscription: Subscription;
  /** The charge a payment_failed or receipt mail is about. */
  readonly charge?: ChargeAttempt;
  /** When the renewal (renewal_upcoming, trial_ending) is charged, or when the card stops working (card_expiring). */
  readonly due_at?: string;
}

/** The mail service. */
export interface Mailer {
  /**
   * Sends a mail. `refused`: the service answered that it did not take it (nothing was sent, a later try may). Throws
   * when the outcome is unknown (a timeout after the request left).
   */
  send(
    mail: CustomerMail,
  ): Promise<{ readonly kind: "sent" } | { readonly kind: "refused"; readonly reason: string }>;
}

/** What the date-driven mails are found by: indexes, never a Scan. */
export interface ReminderIndex {
  /** Subscriptions whose next charge falls on the UTC day of `day`. */
  listDueOn(day: Date): AsyncIterable<readonly DueEntry[]>;
  /** The ids of tokens whose card expires in `month` (YYYYMM). */
  listTokensExpiring(month: string): AsyncIterable<readonly string[]>;
}
