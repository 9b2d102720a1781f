import * as z from "zod";
import type { BillingDocument } from "../../core/base/documents";
import type { ChargeAttempt, Subscription } from "../../core/base/model";
import { orderIdFor } from "../../core/base/order-id";
import { lazySchema } from "../../shared/lazy-schema";
import { type Html, html } from "../shared/html";
import { type PageResult, pageAnswer } from "../shared/page-layout";
import {
  type ChargeStatusName,
  dayText,
  moneyText,
  PAGE_TEXT,
  type PageLang,
  type PortalNotice,
  type RefusalReason,
} from "../shared/page-text";
import { chargedText, discountText, nextChargeAmountText, planPriceText } from "../shared/price-text";
import { actionForm, payButton, RETURN_SCRIPT, type WindowLaunch } from "../shared/window-launch";

// The customer portal (README, Customer portal): each subscription of the link's scope with its charges, and the
// actions the merchant offers — a new card (the gateway's window), the overdue period retried with the card on file,
// a cancel at the period's end and its undo, a resume. Which actions a subscription offers follows from its state
// alone, so the page and the action's handler agree.

/** What a merchant may offer in the portal (PORTAL_ACTIONS; all by default). */
export const PORTAL_ACTIONS = ["update_card", "retry_payment", "cancel", "resume"] as const;
export const portalActionsSchema = lazySchema(() => z.array(z.enum(PORTAL_ACTIONS)));
export type PortalAction = (typeof PORTAL_ACTIONS)[number];

/** An action's path segment (POST /portal/{token}/subscriptions/{id}/{action}). */
export type ActionPath = "card" | "retry" | "cancel" | "keep" | "resume";

export interface OfferedAction {
  readonly path: ActionPath;
  readonly label: string;
  readonly secondary?: boolean;
}

/** The actions a subscription offers now, among those the merchant enabled. */
export function actionsOf(
  subscription: Subscription,
  enabled: ReadonlySet<PortalAction>,
  lang: PageLang,
): OfferedAction[] {
  const text = PAGE_TEXT[lang];
  const { status, billing_mode: billing, card } = subscription;
  const owed = nextChargeAmountText(subscription, lang);
  const offered: OfferedAction[] = [];
  if (enabled.has("update_card") && ["active", "trialing", "past_due", "paused"].includes(status))
    offered.push({
      path: "card",
      label: status === "past_due" ? text.payWithNewCard(owed) : text.updateCard,
    });
  const retryDue = subscription.next_charge_at !== undefined && card !== undefined;
  if (enabled.has("retry_payment") && status === "past_due" && billing === "token" && retryDue)
    offered.push({ path: "retry", label: text.retryWithCard(card.last4), secondary: true });
  if (enabled.has("cancel") && billing === "token" && ["active", "trialing"].includes(status)) {
    if (subscription.cancel_at !== undefined) offered.push({ path: "keep", label: text.keepSubscription });
    else if (subscription.next_charge_at !== undefined)
      offered.push({ path: "cancel", label: text.cancelAtPeriodEnd, secondary: true });
  }
  if (enabled.has("resume") && status === "paused") offered.push({ path: "resume", label: text.resume });
  return offered;
}

export interface PortalEntry {
  readonly subscription: Subscription;
  readonly charges: readonly ChargeAttempt[];
  /** Its latest invoices and credit notes, newest first. */
  readonly documents?: readonly BillingDocument[];
}

export interface PortalPageInput {
  readonly lang: PageLang;
  readonly entries: readonly PortalEntry[];
  readonly enabled: ReadonlySet<PortalAction>;
  readonly merchantName?: string;
  /** The merchant's "back" (return_url of the portal session). */
  readonly returnUrl?: string;
  readonly formToken: string;
  readonly actionUrl: (subscriptionId: string, action: ActionPath) => string;
  readonly receiptUrl: (chargeId: string) => string;
  /** A document's page, under a link signed for it. */
  readonly documentUrl: (document: BillingDocument) => string;
  /** What the last action or the card window came to. */
  readonly notice?: PortalNotice;
  readonly refusal?: RefusalReason;
  /** The page looks again shortly (a result on its way), at this URL. */
  readonly refreshTo?: string;
}

function chargeStatusOf(charge: ChargeAttempt): ChargeStatusName | undefined {
  switch (charge.status) {
    case "succeeded": {
      const refunded = Number(charge.refunded_amount ?? "0");
      if (refunded === 0) return "paid";
      return refunded >= Number(charge.amount) ? "refunded" : "partly_refunded";
    }
    case "declined":
    case "failed":
      return "declined";
    case "voided":
      // Nothing happened: not the customer's concern.
      return undefined;
    default:
      return "processing";
  }
}

function chargesTable(charges: readonly ChargeAttempt[], input: PortalPageInput): Html {
  const { lang } = input;
  const text = PAGE_TEXT[lang];
  const rows = [...charges]
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .flatMap((charge) => {
      const status = chargeStatusOf(charge);
      if (status === undefined) return [];
      const receipt =
        charge.status === "succeeded" && charge.transaction_id !== undefined
          ? html`<a href="${input.receiptUrl(orderIdFor(charge))}">${text.receipt}</a>`
          : "";
      return [
        html`<tr><td>${dayText(charge.created_at, lang)}</td><td>${chargedText(charge, lang)}</td><td>${text.chargeStatuses[status]}</td><td>${receipt}</td></tr>`,
      ];
    });
  if (rows.length === 0) return html``;
  return html`<h3>${text.chargesTitle}</h3>
<table><thead><tr><th scope="col">${text.chargeDate}</th><th scope="col">${text.chargeAmount}</th><th scope="col">${text.chargeStatus}</th><th scope="col"><span hidden>${text.receipt}</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/** The subscription's invoices and credit notes, each a link to its page (where its PDF is). */
function documentsTable(documents: readonly BillingDocument[], input: PortalPageInput): Html {
  if (documents.length === 0) return html``;
  const { lang } = input;
  const text = PAGE_TEXT[lang];
  const rows = documents.map(
    (document) =>
      html`<tr><td><a href="${input.documentUrl(document)}">${text.documentKinds[document.kind]} ${document.number}</a></td><td>${dayText(`${document.issue_date}T00:00:00.000Z`, lang)}</td><td>${moneyText(document.total, document.currency, lang)}</td></tr>`,
  );
  return html`<h3>${text.documentsTitle}</h3>
<table><thead><tr><th scope="col">${text.documentNumber}</th><th scope="col">${text.chargeDate}</th><th scope="col">${text.chargeAmount}</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function subscriptionSection(
  { subscription, charges, documents = [] }: PortalEntry,
  input: PortalPageInput,
): Html {
  const { lang } = input;
  const text = PAGE_TEXT[lang];
  const { plan, status } = subscription;
  const price = planPriceText(plan, lang, subscription.tax_rate);
  const facts: Html[] = [
    ...(plan.product === undefined ? [] : [html`<p>${price}</p>`]),
    html`<p>${text.status(text.statuses[status])}</p>`,
  ];
  const next = nextChargeAmountText(subscription, lang);
  if (status === "past_due") facts.push(html`<p class="alert" role="alert">${text.overdue(next)}</p>`);
  if (subscription.trial_end !== undefined && status === "trialing")
    facts.push(html`<p>${text.trialEnds(dayText(subscription.trial_end, lang))}</p>`);
  if (subscription.cancel_at !== undefined)
    facts.push(html`<p>${text.cancelsOn(dayText(subscription.cancel_at, lang))}</p>`);
  else if (subscription.next_charge_at !== undefined && (status === "active" || status === "trialing"))
    facts.push(html`<p>${text.nextCharge(dayText(subscription.next_charge_at, lang), next)}</p>`);
  if (status === "paused" && subscription.resume_at !== undefined)
    facts.push(html`<p>${text.pausedUntil(dayText(subscription.resume_at, lang))}</p>`);
  const discount = status === "canceled" ? undefined : discountText(subscription, lang);
  if (discount !== undefined) facts.push(html`<p>${text.coupon} ${discount}</p>`);
  if (subscription.card !== undefined)
    facts.push(html`<p>${text.card(subscription.card.first4, subscription.card.last4)}</p>`);
  const actions = actionsOf(subscription, input.enabled, lang).map((action) =>
    actionForm(
      input.actionUrl(subscription.subscription_id, action.path),
      input.formToken,
      action.label,
      action.secondary,
    ),
  );
  return html`<section aria-labelledby="${subscription.subscription_id}"><h2 id="${subscription.subscription_id}">${plan.product ?? price}</h2>
${facts}${actions}${chargesTable(charges, input)}${documentsTable(documents, input)}</section>`;
}

export function portalPage(input: PortalPageInput): PageResult {
  const { lang, entries } = input;
  const text = PAGE_TEXT[lang];
  const notice =
    input.refusal !== undefined
      ? html`<p class="alert" role="alert">${text.reasons[input.refusal]}</p>`
      : input.notice !== undefined
        ? html`<p role="status">${text.notices[input.notice]}</p>`
        : "";
  const back =
    input.returnUrl === undefined ? "" : html`<p><a href="${input.returnUrl}">${text.back}</a></p>`;
  const by = input.merchantName === undefined ? "" : html`<p class="muted">${input.merchantName}</p>`;
  const sections =
    entries.length === 0
      ? html`<p>${text.portalEmpty}</p>`
      : entries.map((entry) => subscriptionSection(entry, input));
  return pageAnswer(200, {
    lang,
    title: text.portalTitle,
    main: html`<h1>${text.portalTitle}</h1>${by}${notice}${sections}${back}`,
    scripts: [RETURN_SCRIPT],
    ...(input.refreshTo === undefined ? {} : { refreshSeconds: 2, refreshTo: input.refreshTo }),
  });
}

/** The new card's window for a subscription: what its payment does, and the pay button. */
export function cardWindowPage(input: {
  readonly lang: PageLang;
  readonly subscription: Subscription;
  readonly line: ChargeAttempt & { readonly window: WindowLaunch };
  readonly portalUrl: string;
}): PageResult {
  const { lang, subscription, line } = input;
  const text = PAGE_TEXT[lang];
  const what = line.verification
    ? text.cardWindowCheck
    : text.cardWindowOwed(moneyText(line.amount, line.currency, lang));
  const { markup, ...allowed } = payButton(line.window, lang, text.payNewCard);
  return pageAnswer(200, {
    lang,
    title: text.cardWindowTitle,
    main: html`<h1>${text.cardWindowTitle}</h1><p class="price">${planPriceText(subscription.plan, lang, subscription.tax_rate)}</p>
<p>${what}</p>${markup}<p><a href="${input.portalUrl}">${text.back}</a></p>`,
    ...allowed,
  });
}
