import { isAdHocPeriod } from "../base/charge-kind";
import type { OutboxEvent } from "../base/events";
import type { Subscription, TokenRecord } from "../base/model";
import type { LedgerStore, OnceRecords, SubscriptionStore, TokenStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import {
  type CustomerMail,
  MAIL_TEMPLATES,
  type Mailer,
  type MailTemplate,
  type ReminderIndex,
} from "../ports/mailer";

// The mails a customer gets (README, Customer e-mails): each is decided here from an event or a date, claimed under
// an id derived from what it tells (a redelivered event, a second run, a race claim the same id), then handed to the
// mailer, which words it in the customer's language. The claim comes first: a mail is never sent twice, and a send
// the mail service refused gives its claim back for the next try.

/** Which mails the merchant sends, and how far ahead the date-driven ones go. */
export interface MailPolicy {
  readonly templates: ReadonlySet<MailTemplate>;
  /** renewal_upcoming goes this many days before a renewal. */
  readonly renewalNoticeDays: number;
}

/** Every mail but renewal_upcoming, which a merchant turns on. */
export const DEFAULT_MAIL_TEMPLATES: readonly MailTemplate[] = MAIL_TEMPLATES.filter(
  (template) => template !== "renewal_upcoming",
);
export const DEFAULT_RENEWAL_NOTICE_DAYS = 7;
/** trial_ending goes this many days before the trial's end. */
const TRIAL_NOTICE_DAYS = 3;
/** card_expiring goes this many days before the end of the card's expiry month (once each, largest first). */
const CARD_EXPIRY_NOTICE_DAYS = [30, 7] as const;

export interface MailDeps {
  readonly repository: SubscriptionStore & LedgerStore & TokenStore & OnceRecords;
  readonly mailer: Mailer;
  readonly mailPolicy: MailPolicy;
  readonly clock: Clock;
}

export type MailOutcome =
  | { readonly kind: "sent"; readonly mail_id: string }
  /** Claimed before: sent already, or being sent. */
  | { readonly kind: "duplicate"; readonly mail_id: string }
  /** No mail for this (not one the merchant sends, or not one worth sending). */
  | { readonly kind: "none" };

/** A mail's claim outlives any redelivery of its event (the bus retries for a day; replays come later). */
const MAIL_CLAIM_DAYS = 400;

/** The mail service refused a mail (its claim is given back): the caller's retry sends it. */
export class MailRefused extends Error {}

/** Claims the mail's id, then sends it; a refusal gives the claim back and throws MailRefused. */
async function sendOnce(mail: CustomerMail, deps: MailDeps): Promise<MailOutcome> {
  const claim = `mail#${mail.mail_id}`;
  const expiresAt = new Date(deps.clock.now().getTime() + MAIL_CLAIM_DAYS * 86_400_000);
  if (!(await deps.repository.recordOnce(claim, expiresAt)))
    return { kind: "duplicate", mail_id: mail.mail_id };
  // An outcome we cannot read keeps the claim: a mail may be lost, never sent twice.
  const sent = await deps.mailer.send(mail);
  if (sent.kind === "refused") {
    await deps.repository.forgetOnce(claim);
    throw new MailRefused(`the mail service refused ${mail.template}: ${sent.reason}`);
  }
  return { kind: "sent", mail_id: mail.mail_id };
}

const NONE: MailOutcome = { kind: "none" };

/**
 * The mail an event calls for, sent once (the id is the event's): a renewal's failed payment (a sign-up's customer is
 * at the window and sees it there), a receipt of every paid charge but a card check, and the end of a subscription
 * that had started.
 */
export async function mailForEvent(event: OutboxEvent, deps: MailDeps): Promise<MailOutcome> {
  const template = templateOfEvent(event);
  if (template === undefined || !deps.mailPolicy.templates.has(template)) return NONE;
  const subscription = await deps.repository.getSubscription(event.subscription_id);
  if (subscription === undefined) return NONE;
  const mail = { mail_id: `${template}-${event.event_id}`, template, event_id: event.event_id, subscription };
  if (event.type === "subscription.canceled") {
    const started = subscription.period > 0 || subscription.trial_end !== undefined;
    return started ? sendOnce(mail, deps) : NONE;
  }
  if (event.type !== "charge.failed" && event.type !== "charge.succeeded") return NONE;
  const charge = await deps.repository.getAttempt({
    subscription_id: event.subscription_id,
    period: event.period,
    attempt: event.attempt,
  });
  if (charge === undefined || charge.verification) return NONE;
  if (event.type === "charge.failed") {
    // A renewal's failure, while the subscription can still be mended (a canceled one gets its own mail).
    const renewal = event.period > 0 && !isAdHocPeriod(event.period);
    if (!renewal || subscription.status === "canceled") return NONE;
  }
  return sendOnce({ ...mail, charge }, deps);
}

function templateOfEvent(event: OutboxEvent): MailTemplate | undefined {
  switch (event.type) {
    case "charge.failed":
      return "payment_failed";
    case "charge.succeeded":
      return "receipt";
    case "subscription.canceled":
      return "subscription_canceled";
    default:
      return undefined;
  }
}

export interface ReminderReport {
  readonly sent: number;
  readonly duplicates: number;
}

const DAY_MS = 86_400_000;

/**
 * The date-driven mails due at `now`, each sent once (its id names what it is about and the date): trial_ending for
 * trials ending TRIAL_NOTICE_DAYS later, renewal_upcoming for renewals renewalNoticeDays later, card_expiring for
 * token-billed cards whose expiry month ends within one of CARD_EXPIRY_NOTICE_DAYS. Run daily (more often is
 * harmless); a day the run missed is not caught up.
 */
export async function sendReminders(
  now: Date,
  deps: MailDeps & { readonly reminders: ReminderIndex },
): Promise<ReminderReport> {
  let sent = 0;
  let duplicates = 0;
  const send = async (mail: CustomerMail) => {
    const outcome = await sendOnce(mail, deps);
    if (outcome.kind === "sent") sent += 1;
    if (outcome.kind === "duplicate") duplicates += 1;
  };
  const { templates, renewalNoticeDays } = deps.mailPolicy;
  if (templates.has("trial_ending")) {
    for await (const subscription of dueOn(new Date(now.getTime() + TRIAL_NOTICE_DAYS * DAY_MS), deps)) {
      const { status, trial_end, next_charge_at } = subscription;
      if (status !== "trialing" || trial_end === undefined || trial_end !== next_charge_at) continue;
      const mail_id = `trial_ending-${subscription.subscription_id}-${trial_end.slice(0, 10)}`;
      await send({ mail_id, template: "trial_ending", subscription, due_at: trial_end });
    }
  }
  if (templates.has("renewal_upcoming")) {
    for await (const subscription of dueOn(new Date(now.getTime() + renewalNoticeDays * DAY_MS), deps)) {
      const { status, next_charge_at, cancel_at, period } = subscription;
      if (status !== "active" || next_charge_at === undefined || cancel_at !== undefined) continue;
      const mail_id = `renewal_upcoming-${subscription.subscription_id}-${period}`;
      await send({ mail_id, template: "renewal_upcoming", subscription, due_at: next_charge_at });
    }
  }
  if (templates.has("card_expiring")) {
    for (const month of [monthOf(now), monthOf(startOfNextMonth(now))]) {
      for await (const tokenIds of deps.reminders.listTokensExpiring(month)) {
        for (const tokenId of tokenIds) {
          const token = await deps.repository.getToken(tokenId);
          const mail = token === undefined ? undefined : await cardExpiringMail(token, now, deps);
          if (mail !== undefined) await send(mail);
        }
      }
    }
  }
  return { sent, duplicates };
}

async function* dueOn(
  day: Date,
  deps: MailDeps & { readonly reminders: ReminderIndex },
): AsyncGenerator<Subscription> {
  for await (const entries of deps.reminders.listDueOn(day)) {
    for (const entry of entries) {
      const subscription = await deps.repository.getSubscription(entry.subscription_id);
      if (subscription !== undefined) yield subscription;
    }
  }
}

/** card_expiring for a token still charged for a subscription that goes on, at the nearest threshold reached. */
async function cardExpiringMail(
  token: TokenRecord,
  now: Date,
  deps: MailDeps,
): Promise<CustomerMail | undefined> {
  if (token.expiry === undefined || token.status !== "active") return undefined;
  const expiresAt = startOfNextMonth(
    new Date(`${token.expiry.slice(0, 4)}-${token.expiry.slice(4)}-01T00:00:00Z`),
  );
  const daysLeft = (expiresAt.getTime() - now.getTime()) / DAY_MS;
  const threshold = CARD_EXPIRY_NOTICE_DAYS.findLast((days) => daysLeft > 0 && daysLeft <= days);
  if (threshold === undefined) return undefined;
  const subscription = await deps.repository.getSubscription(token.subscription_id);
  if (subscription === undefined || subscription.token_id !== token.token_id) return undefined;
  if (!["active", "trialing", "past_due"].includes(subscription.status)) return undefined;
  if (subscription.cancel_at !== undefined && subscription.cancel_at <= expiresAt.toISOString())
    return undefined;
  return {
    mail_id: `card_expiring-${token.token_id}-${threshold}`,
    template: "card_expiring",
    subscription,
    due_at: expiresAt.toISOString(),
  };
}

/** YYYYMM of an instant's UTC month. */
const monthOf = (instant: Date): string => instant.toISOString().slice(0, 7).replace("-", "");

function startOfNextMonth(instant: Date): Date {
  return new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + 1, 1));
}
