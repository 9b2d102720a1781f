import { planDue } from "../core/base/model";
import { periodCharge } from "../core/base/plan-price";
import type { CustomerMail } from "../core/ports/mailer";
import { html } from "../pages/shared/html";
import { dayText, langOf, type PageLang } from "../pages/shared/page-text";
import { chargedText, planPriceText } from "../pages/shared/price-text";
import { MAIL_TEXT, type MailFacts } from "./mail-text";

/** The merchant's side of every mail. */
export interface MailSender {
  readonly merchantName: string;
  /** Where customers write with questions (the reply-to unless the merchant set one). */
  readonly supportAddress?: string;
}

export interface RenderedMail {
  readonly lang: PageLang;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** The links a mail carries, each signed for the customer and in their language. */
export interface MailLinks {
  /** The portal (where a card is fixed, a subscription canceled, receipts and invoices found). */
  readonly portalUrlOf: (subscriptionId: string, lang: PageLang) => string;
  /** An invoice's page (where its PDF is). */
  readonly invoiceUrlOf: (number: string, lang: PageLang) => string;
}

/**
 * A mail in the customer's language (theirs, else the checkout's, else English), as plain text and HTML; a mail whose
 * words offer an action carries the portal link, and a receipt of an invoiced charge its invoice's.
 */
export function renderMail(mail: CustomerMail, sender: MailSender, links: MailLinks): RenderedMail {
  const { subscription, charge } = mail;
  const lang = subscription.customer.lang ?? langOf(subscription.hosted_checkout?.lang) ?? "en";
  const text = MAIL_TEXT[lang];
  const plan = planDue(subscription);
  const facts: MailFacts = {
    merchant: sender.merchantName,
    customerName: subscription.customer.name,
    price: planPriceText(plan, lang, subscription.tax_rate),
    // The charge's amount, or the next period charge's (a renewal ahead), each less its discount.
    amount: chargedText(charge ?? periodCharge(subscription), lang),
    day: dayOf(mail, lang),
    last4: subscription.card?.last4,
    orderId: charge?.order_id,
    declineReason: charge?.decline_reason,
  };
  const words = text.words[mail.template](facts);
  const paragraphs = words.paragraphs.filter((paragraph) => paragraph !== "");
  const { action } = words;
  const portalUrl = action === undefined ? undefined : links.portalUrlOf(subscription.subscription_id, lang);
  const number = mail.template === "receipt" ? charge?.invoice_number : undefined;
  const invoice =
    number === undefined
      ? undefined
      : { label: text.invoiceLink(number), url: links.invoiceUrlOf(number, lang) };
  const closing = [
    ...(sender.supportAddress === undefined ? [] : [text.support(sender.supportAddress)]),
    text.signature(sender.merchantName),
  ];
  const plain = [
    text.greeting(facts.customerName),
    ...paragraphs,
    ...(invoice === undefined ? [] : [`${invoice.label}: ${invoice.url}`]),
    ...(action === undefined ? [] : [`${action}: ${portalUrl}\n${text.linkNote}`]),
    ...closing,
  ].join("\n\n");
  const markup = html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>${words.subject}</title></head>
<body style="font-family: system-ui, sans-serif; color: #1a1a1a; max-width: 560px; margin: 0 auto; padding: 24px; line-height: 1.5">
<p>${text.greeting(facts.customerName)}</p>
${paragraphs.map((paragraph) => html`<p>${paragraph}</p>`)}
${invoice === undefined ? "" : html`<p><a href="${invoice.url}">${invoice.label}</a></p>`}
${
  action === undefined
    ? ""
    : html`<p><a href="${portalUrl}" style="display: inline-block; background: #1f4fd1; color: #ffffff; padding: 10px 18px; border-radius: 6px; text-decoration: none">${action}</a></p>
<p style="color: #555555; font-size: 14px">${text.linkNote}</p>`
}
${closing.map((line) => html`<p style="color: #555555">${line}</p>`)}
</body></html>`;
  return { lang, subject: words.subject, text: plain, html: markup.text };
}

/** The day a mail speaks of: the charge's, the renewal's, or the card's last day (the day before due_at). */
function dayOf(mail: CustomerMail, lang: PageLang): string | undefined {
  if (mail.charge !== undefined) return dayText(mail.charge.updated_at, lang);
  if (mail.due_at === undefined) return undefined;
  const lastDay =
    mail.template === "card_expiring" ? new Date(Date.parse(mail.due_at) - 1).toISOString() : mail.due_at;
  return dayText(lastDay, lang);
}
