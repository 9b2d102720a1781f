import { periodStartOf } from "../../core/base/billing-period";
import { CHECKOUT_EXPIRED, type ChargeAttempt, hasExpired, type Subscription } from "../../core/base/model";
import { type Html, html } from "../shared/html";
import { type PageContent, type PageResult, pageAnswer } from "../shared/page-layout";
import {
  dayText,
  moneyText,
  PAGE_TEXT,
  type PageLang,
  type RefusalReason,
  refusalReasonOf,
} from "../shared/page-text";
import { discountText, nextChargeAmountText, planPriceText } from "../shared/price-text";
import { actionForm, payButton, RETURN_SCRIPT } from "../shared/window-launch";

// The hosted checkout's page (README, Hosted checkout): what it shows follows from the subscription and its period-0
// lines alone — the pay button while its window waits, "checking" while the result is on its way, the outcome after,
// and once the checkout expired unpaid, that it did and nothing to pay.

export type CheckoutState =
  /** The current try's window is prepared: the customer pays in it. */
  | { readonly kind: "pay"; readonly line: ChargeAttempt & Required<Pick<ChargeAttempt, "window">> }
  /** The customer came back, or the result is being recorded: the page looks again shortly. */
  | { readonly kind: "verifying" }
  | { readonly kind: "paid" }
  /** The last try of a hosted checkout was refused (nothing charged): the customer may try again. */
  | { readonly kind: "refused"; readonly reason: RefusalReason }
  /** Not paid before it expired (closed by the sweep, or about to be): nothing can be paid here any more. */
  | { readonly kind: "expired" }
  | { readonly kind: "closed" };

/** Whether a checkout expired unpaid at `now`: closed as expired, or still pending past its end. */
export const checkoutExpired = (subscription: Subscription, now: Date): boolean =>
  subscription.status === "canceled"
    ? subscription.status_reason === CHECKOUT_EXPIRED
    : subscription.status === "pending" && hasExpired(subscription.checkout_expires_at, now);

/**
 * What the checkout page shows at `now`. `returned`: the customer is back from the window, so an open line means its
 * result is on its way rather than that the window still waits.
 */
export function checkoutStateOf(
  subscription: Subscription,
  lines: readonly ChargeAttempt[],
  returned: boolean,
  now: Date,
): CheckoutState {
  if (checkoutExpired(subscription, now)) return { kind: "expired" };
  if (subscription.status === "canceled") return { kind: "closed" };
  if (subscription.status !== "pending") return { kind: "paid" };
  const line = (attempt: number) => lines.find((entry) => entry.period === 0 && entry.attempt === attempt);
  const current = line(subscription.attempt);
  if (current === undefined) {
    const last = line(subscription.attempt - 1);
    if (last === undefined || subscription.hosted_checkout === undefined) return { kind: "closed" };
    return { kind: "refused", reason: refusalReasonOf(last) };
  }
  const open = current.status === "pending" || current.status === "retry" || current.status === "unknown";
  if (open && !returned && current.window !== undefined)
    return { kind: "pay", line: { ...current, window: current.window } };
  return { kind: "verifying" };
}

export interface CheckoutPageInput {
  readonly lang: PageLang;
  readonly subscription: Subscription;
  readonly state: CheckoutState;
  readonly merchantName?: string;
  /** Where the page's forms post: the retry action and its form token. */
  readonly retryUrl: string;
  readonly formToken: string;
}

/**
 * What is bought: the product's name (else the checkout's description), its price with the seats, the seller, and
 * the coupon with what it takes off — then `rows`, what this state adds (what is due today).
 */
function summary({ lang, subscription, merchantName }: CheckoutPageInput, rows: readonly Html[] = []) {
  const text = PAGE_TEXT[lang];
  const { plan, hosted_checkout: settings } = subscription;
  const price = planPriceText(plan, lang, subscription.tax_rate);
  const name = plan.product ?? settings?.description;
  const what =
    name === undefined
      ? html`<p class="price">${price}</p>`
      : html`<p class="price">${name}</p><p>${price}</p>`;
  const discount = discountText(subscription, lang);
  const facts = [
    ...(discount === undefined ? [] : [html`<dt>${text.coupon}</dt><dd>${discount}</dd>`]),
    ...rows,
  ];
  return html`${what}
${merchantName === undefined ? "" : html`<p class="muted">${text.soldBy(merchantName)}</p>`}
${facts.length === 0 ? "" : html`<dl>${facts}</dl>`}`;
}

export function checkoutPage(input: CheckoutPageInput): PageResult {
  const { lang, subscription, state } = input;
  const text = PAGE_TEXT[lang];
  const settings = subscription.hosted_checkout;
  const content = (title: string, main: ReturnType<typeof html>, extra: Partial<PageContent> = {}) =>
    pageAnswer(200, { lang, title, main: html`<h1>${title}</h1>${main}`, ...extra });
  switch (state.kind) {
    case "pay": {
      const { line } = state;
      const trial =
        subscription.trial_end === undefined
          ? ""
          : html`<p>${text.trial(
              Math.round(
                (Date.parse(subscription.trial_end) - Date.parse(subscription.created_at)) / 86_400_000,
              ),
              dayText(subscription.trial_end, lang),
              nextChargeAmountText(subscription, lang),
            )}</p>`;
      const cancel =
        settings?.cancel_url === undefined
          ? ""
          : html`<p><a href="${settings.cancel_url}">${text.cancel}</a></p>`;
      const { markup, ...allowed } = payButton(line.window, lang, text.pay);
      // A trial's card, and one whose first period is free, is only checked: the smallest charge, refunded at once.
      const due = moneyText(line.verification ? "0" : line.amount, line.currency, lang);
      return content(
        text.checkoutTitle,
        html`${summary(input, [html`<dt>${text.dueToday}</dt><dd>${due}</dd>`])}${trial}
${line.verification ? html`<p class="muted">${text.verification}</p>` : ""}
${markup}${cancel}`,
        allowed,
      );
    }
    case "verifying":
      return content(text.verifyingTitle, html`<p role="status">${text.verifyingNote}</p>`, {
        refreshSeconds: 2,
        scripts: [RETURN_SCRIPT],
      });
    case "paid": {
      const next =
        subscription.next_charge_at ?? periodStartOf(subscription, subscription.period).toISOString();
      const card = subscription.card;
      return content(
        text.paidTitle,
        html`${summary(input)}
${subscription.trial_end === undefined ? "" : html`<p>${text.trialEnds(dayText(subscription.trial_end, lang))}</p>`}
<p>${text.nextCharge(dayText(next, lang), nextChargeAmountText(subscription, lang))}</p>
${card === undefined ? "" : html`<p>${text.card(card.first4, card.last4)}</p>`}
${settings?.success_url === undefined ? "" : html`<p><a class="button" href="${settings.success_url}">${text.continue}</a></p>`}`,
        { scripts: [RETURN_SCRIPT] },
      );
    }
    case "refused":
      return content(
        text.declinedTitle,
        html`<p class="alert" role="alert">${text.reasons[state.reason]}</p>${summary(input)}
${actionForm(input.retryUrl, input.formToken, text.retry)}
${settings?.cancel_url === undefined ? "" : html`<p><a href="${settings.cancel_url}">${text.cancel}</a></p>`}`,
        { scripts: [RETURN_SCRIPT] },
      );
    case "expired":
      return expiredCheckoutPage(lang, subscription);
    case "closed":
      return content(text.closedTitle, html`<p>${text.closedNote}</p>`);
  }
}

/** A checkout that expired unpaid: it says so, and offers nothing to pay (410: it will not come back). */
export function expiredCheckoutPage(lang: PageLang, subscription: Subscription): PageResult {
  const text = PAGE_TEXT[lang];
  const back = subscription.hosted_checkout?.cancel_url;
  return pageAnswer(410, {
    lang,
    title: text.checkoutExpiredTitle,
    main: html`<h1>${text.checkoutExpiredTitle}</h1><p>${text.checkoutExpiredNote}</p>
${back === undefined ? "" : html`<p><a href="${back}">${text.back}</a></p>`}`,
  });
}
