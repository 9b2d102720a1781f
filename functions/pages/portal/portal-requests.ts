import type { HttpRequest } from "../../api/http";
import type { BillingDocument } from "../../core/base/documents";
import type { Subscription } from "../../core/base/model";
import { attemptKeyOf } from "../../core/base/order-id";
import { receiptOf } from "../../core/charging/receipts";
import type { SubscriptionStore } from "../../core/ports/billing-repository";
import type { DocumentStore } from "../../core/ports/document-store";
import { type PageResult, seeOther } from "../shared/page-layout";
import { documentLinksOf, type LinkClaims, type PortalSubject, portalSubjectOf } from "../shared/page-links";
import { askedLangOf, openLink, unknownLinkPage } from "../shared/page-requests";
import { PORTAL_PAGE_ROUTES, routeKeyOf } from "../shared/page-routes";
import type { PageLang } from "../shared/page-text";
import { noticeOf, type PortalPageDeps, portalActionAnswer } from "./portal-actions";
import { cardOutcome, openCardWindow } from "./portal-card-window";
import { cardWindowPage, type PortalEntry, portalPage } from "./portal-page";

// What each request of the customer portal comes to, under its link: the return from the card window, a receipt, the
// overview of the link's subscriptions, a new card's window, an action. Nothing outside the link's subscriptions is
// ever read into a page.

/** The most subscriptions one customer's portal lists (a customer with more is one the merchant should look at). */
const MAX_SUBSCRIPTIONS = 100;
/** The most documents a subscription's section lists: its latest (the merchant API lists them all). */
const MAX_DOCUMENTS = 12;

/** A subscription's latest invoices and credit notes, newest first. */
async function documentsOf(
  subscriptionId: string,
  repository: Pick<DocumentStore, "listInvoices" | "listCreditNotes">,
): Promise<BillingDocument[]> {
  const query = { subscription_ids: [subscriptionId] };
  const [invoices, notes] = await Promise.all([
    repository.listInvoices(query, { limit: MAX_DOCUMENTS }),
    repository.listCreditNotes(query, { limit: MAX_DOCUMENTS }),
  ]);
  return [...invoices.documents, ...notes.documents]
    .sort((a, b) => b.issued_at.localeCompare(a.issued_at))
    .slice(0, MAX_DOCUMENTS);
}

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

/** A request of the portal (PORTAL_PAGE_ROUTES, by its route key), answered under the link in its path. */
export async function portalAnswer(request: HttpRequest, services: PortalPageDeps): Promise<PageResult> {
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
      documents: await documentsOf(subscription.subscription_id, services.repository),
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
  if (route === routeKeyOf(PORTAL_PAGE_ROUTES.page)) return overview(request, services, link, entries, lang);

  const entry = entries.find(({ subscription }) => subscription.subscription_id === params.id);
  if (entry === undefined) return unknownLinkPage(lang);
  if (route === routeKeyOf(PORTAL_PAGE_ROUTES.card)) {
    const line = openCardWindow(entry.charges, services.clock.now());
    if (line === undefined) return seeOther(portalUrl);
    return cardWindowPage({ lang, subscription: entry.subscription, line, portalUrl });
  }
  return portalActionAnswer(request, entry, services, { token: link.token, portalUrl, lang });
}

/** The portal's page: the link's subscriptions, and what the last action or the card window came to. */
function overview(
  request: HttpRequest,
  services: PortalPageDeps,
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
    documentUrl: (document) => documentLinksOf(links, document, { lang }).hosted_url,
    notice,
    refusal: "refusal" in returned ? returned.refusal : undefined,
    // A card being checked: the same page again; a retry being charged: the plain page shows where it ended.
    refreshTo: waiting ? (notice === "retrying" ? portalUrl : `${portalUrl}?returned=1`) : undefined,
  });
}
