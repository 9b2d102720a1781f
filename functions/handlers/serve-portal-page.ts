import type { HttpRequest } from "../api/http";
import { type ChargeAttempt, hasExpired, type Subscription } from "../core/base/model";
import { attemptKeyOf } from "../core/base/order-id";
import { receiptOf } from "../core/charging/receipts";
import {
  type PaymentMethodWindowDeps,
  startPaymentMethodWindow,
} from "../core/lifecycle/payment-method-window";
import {
  type ChangeDeps,
  type ChangeResult,
  cancelAtPeriodEnd,
  resumeSubscription,
  retryOverdueNow,
  updateCustomer,
} from "../core/lifecycle/subscription-changes";
import type { SubscriptionStore } from "../core/ports/billing-repository";
import { refusalReasonOf } from "../pages/checkout-page";
import { type PageResult, seeOther, servePage } from "../pages/page-layout";
import { type LinkClaims, type PageLinks, type PortalSubject, portalSubjectOf } from "../pages/page-links";
import {
  askedLangOf,
  formCameFromOurPage,
  openLink,
  refusedActionPage,
  unknownLinkPage,
} from "../pages/page-requests";
import { PORTAL_PAGE_ROUTES, routeKeyOf } from "../pages/page-routes";
import { type PageLang, PORTAL_NOTICES, type PortalNotice } from "../pages/page-text";
import {
  type ActionPath,
  actionsOf,
  cardWindowPage,
  type PortalAction,
  type PortalEntry,
  portalPage,
} from "../pages/portal-page";

export type PortalPageServices = ChangeDeps &
  PaymentMethodWindowDeps & {
    readonly links: PageLinks;
    readonly merchantName?: string;
    readonly portalActions: ReadonlySet<PortalAction>;
  };

/** The most subscriptions one customer's portal lists (a customer with more is one the merchant should look at). */
const MAX_SUBSCRIPTIONS = 100;

/** The link's subscriptions, as stored now: a sign-up that never started is not the customer's to manage. */
async function subscriptionsOf(
  subject: PortalSubject,
  repository: SubscriptionStore,
): Promise<Subscription[]> {
  const found =
    subject.subscription_id !== undefined
      ? [await repository.getSubscription(subject.subscription_id)]
      : (
          await repository.listSubscriptions(
            { external_id: subject.external_id },
            { limit: MAX_SUBSCRIPTIONS },
          )
        ).subscriptions;
  return found.filter((entry): entry is Subscription => entry !== undefined && entry.status !== "pending");
}

/** The new card's window of a subscription that still waits for the customer at `now`, if one does. */
function openCardWindow(charges: readonly ChargeAttempt[], now: Date) {
  return charges.find(
    (line): line is ChargeAttempt & Required<Pick<ChargeAttempt, "window">> =>
      line.purpose === "payment_method" &&
      line.window !== undefined &&
      !hasExpired(line.window.expires_at, now) &&
      (line.status === "pending" || line.status === "retry"),
  );
}

/**
 * Back from the card window: what its latest payment came to — checking while it is open, and while its subscription
 * has not yet taken the card it paid with (the line closes first, the subscription changes in the next write).
 */
function cardOutcome(entries: readonly PortalEntry[]) {
  const [latest] = entries
    .flatMap(({ subscription, charges }) =>
      charges.filter((line) => line.purpose === "payment_method").map((line) => ({ line, subscription })),
    )
    .sort((a, b) => b.line.created_at.localeCompare(a.line.created_at));
  if (latest === undefined) return {};
  const { line, subscription } = latest;
  const checking = { notice: "card_checking" as const, waiting: true };
  if (["pending", "retry", "unknown"].includes(line.status)) return checking;
  if (line.status !== "succeeded") return { refusal: refusalReasonOf(line) };
  // A subscription canceled meanwhile never takes it: the page shows it canceled.
  if (subscription.status === "canceled") return {};
  const taken =
    (line.token_id !== undefined && subscription.token_id === line.token_id) ||
    (line.recurring_id !== undefined && subscription.recurring_id === line.recurring_id);
  return taken ? { notice: "card_updated" as const } : checking;
}

/** The window's language in the gateway's codes. */
const GATEWAY_LANGS: Readonly<Record<PageLang, string>> = { en: "EN", ko: "KR" };

const noticeOf = (done: string | undefined): PortalNotice | undefined =>
  PORTAL_NOTICES.find((notice) => notice === done);

/**
 * The customer portal (README, Customer portal): GET /portal/{token} shows the link's subscriptions and charges; an
 * action (POST …/subscriptions/{id}/{action}) goes through the same core operations as the merchant API, only when
 * the page offers it, from our own page (form token, Fetch metadata); the new card's window has its own page and
 * returns to /portal/{token}/return; a paid charge's receipt is the gateway's page. Nothing outside the link's
 * subscriptions is ever read into a page.
 */
export function run(request: HttpRequest, services: PortalPageServices): Promise<PageResult> {
  return servePage(askedLangOf(request), async () => {
    const link = openLink(request, services.links, "portal");
    if (!link.ok) return link.page;
    const subject = portalSubjectOf(link.claims.sub);
    const lang = askedLangOf(request, link.claims.lang);
    if (subject === undefined) return unknownLinkPage(lang);
    const portalUrl = services.links.url("portal", link.token);
    const route = request.routeKey;
    if (
      route === routeKeyOf(PORTAL_PAGE_ROUTES.returnPost) ||
      route === routeKeyOf(PORTAL_PAGE_ROUTES.returnGet)
    )
      return seeOther(`${portalUrl}?returned=1`);

    const subscriptions = await subscriptionsOf(subject, services.repository);
    const entries = await Promise.all(
      subscriptions.map(async (subscription) => ({
        subscription,
        charges: await services.repository.listAttempts(subscription.subscription_id),
      })),
    );
    const params = request.pathParameters ?? {};
    if (route === routeKeyOf(PORTAL_PAGE_ROUTES.receipt)) {
      const key = attemptKeyOf(params.charge ?? "");
      const owned =
        key !== undefined &&
        entries.some((entry) => entry.subscription.subscription_id === key.subscription_id);
      const receipt = owned ? await receiptOf(key, services) : undefined;
      return receipt?.kind === "receipt" ? seeOther(receipt.receipt_url) : unknownLinkPage(lang);
    }
    if (route === routeKeyOf(PORTAL_PAGE_ROUTES.page))
      return overview(request, services, link, entries, lang);

    const entry = entries.find(({ subscription }) => subscription.subscription_id === params.id);
    if (entry === undefined) return unknownLinkPage(lang);
    if (route === routeKeyOf(PORTAL_PAGE_ROUTES.card)) {
      const line = openCardWindow(entry.charges, services.clock.now());
      if (line === undefined) return seeOther(portalUrl);
      return cardWindowPage({ lang, subscription: entry.subscription, line, portalUrl });
    }
    // An action: from our page, and one this subscription offers now.
    if (!formCameFromOurPage(request, services.links, link.token)) return refusedActionPage(lang);
    const action = actionsOf(entry.subscription, services.portalActions, lang).find(
      (offered) => offered.path === params.action,
    );
    if (action === undefined) return unknownLinkPage(lang);
    const id = entry.subscription.subscription_id;
    return act(action.path, id, { services, portalUrl, lang });
  });
}

function overview(
  request: HttpRequest,
  services: PortalPageServices,
  link: { readonly token: string; readonly claims: LinkClaims },
  entries: readonly PortalEntry[],
  lang: PageLang,
): PageResult {
  const { links } = services;
  const query = request.queryStringParameters ?? {};
  const returned = query.returned === "1" ? cardOutcome(entries) : {};
  const notice = returned.notice ?? noticeOf(query.done);
  const portalUrl = links.url("portal", link.token);
  const waiting = ("waiting" in returned && returned.waiting) || notice === "retrying";
  return portalPage({
    lang,
    entries,
    enabled: services.portalActions,
    merchantName: services.merchantName,
    returnUrl: link.claims.ret,
    formToken: links.formToken(link.token),
    actionUrl: (subscriptionId, action) =>
      links.url("portal", link.token, "subscriptions", subscriptionId, action),
    receiptUrl: (chargeId) => links.url("portal", link.token, "charges", chargeId, "receipt"),
    notice,
    refusal: "refusal" in returned ? returned.refusal : undefined,
    // A card being checked: the same page again; a retry being charged: the plain page shows where it ended.
    refreshTo: waiting ? (notice === "retrying" ? portalUrl : `${portalUrl}?returned=1`) : undefined,
  });
}

/** What the action's outcome says on the portal. */
const doneUrl = (portalUrl: string, result: ChangeResult, notice: PortalNotice) =>
  `${portalUrl}?done=${result.kind === "changed" ? notice : "not_done"}`;

async function act(
  action: ActionPath,
  subscriptionId: string,
  { services, portalUrl, lang }: { services: PortalPageServices; portalUrl: string; lang: PageLang },
): Promise<PageResult> {
  switch (action) {
    case "card": {
      // A window still open (the customer closed it, or pressed twice) is opened again rather than a second one.
      const started = await startPaymentMethodWindow(
        { subscription_id: subscriptionId, return_url: `${portalUrl}/return`, lang: GATEWAY_LANGS[lang] },
        services,
      );
      const opened = started.kind === "started" || started.kind === "conflict";
      return seeOther(
        opened ? `${portalUrl}/subscriptions/${subscriptionId}/card` : `${portalUrl}?done=not_done`,
      );
    }
    case "retry":
      return seeOther(doneUrl(portalUrl, await retryOverdueNow(subscriptionId, services), "retrying"));
    case "cancel":
      return seeOther(
        doneUrl(portalUrl, await cancelAtPeriodEnd(subscriptionId, services), "cancel_scheduled"),
      );
    case "keep":
      return seeOther(
        doneUrl(
          portalUrl,
          await updateCustomer(subscriptionId, { cancel_at_period_end: false }, services),
          "kept",
        ),
      );
    case "resume":
      return seeOther(doneUrl(portalUrl, await resumeSubscription(subscriptionId, services), "resumed"));
  }
}
