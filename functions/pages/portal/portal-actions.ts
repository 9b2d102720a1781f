import type { HttpRequest } from "../../api/http";
import {
  type PaymentMethodWindowDeps,
  startPaymentMethodWindow,
} from "../../core/lifecycle/payment-method-window";
import {
  type ChangeDeps,
  type ChangeResult,
  cancelAtPeriodEnd,
  resumeSubscription,
  retryOverdueNow,
  updateCustomer,
} from "../../core/lifecycle/subscription-changes";
import { type PageResult, seeOther } from "../shared/page-layout";
import {
  formCameFromOurPage,
  type PageSettings,
  refusedActionPage,
  unknownLinkPage,
} from "../shared/page-requests";
import { type PageLang, PORTAL_NOTICES, type PortalNotice } from "../shared/page-text";
import { type ActionPath, actionsOf, type PortalAction, type PortalEntry } from "./portal-page";

// The portal's actions as posted (POST /portal/{token}/subscriptions/{id}/{action}): each goes through the same core
// operation as the merchant API, only from our own page and only when the subscription offers it now (actionsOf, as
// the page asked), and is answered by a redirect to the portal saying what it came to (`?done=`).

/** What the portal is served with beyond its core operations' own services. */
export interface PortalSettings extends PageSettings {
  /** The actions the merchant offers. */
  readonly portalActions: ReadonlySet<PortalAction>;
}

export type PortalPageDeps = ChangeDeps & PaymentMethodWindowDeps & PortalSettings;

/** Where an action answers from: the portal's link and its URL, in the page's language. */
export interface PortalPlace {
  readonly token: string;
  readonly portalUrl: string;
  readonly lang: PageLang;
}

/** The window's language in the gateway's codes. */
const GATEWAY_LANGS: Readonly<Record<PageLang, string>> = { en: "EN", ko: "KR" };

/** The notice an action's redirect asked the portal to show (`?done=`), if it is one. */
export const noticeOf = (done: string | undefined): PortalNotice | undefined =>
  PORTAL_NOTICES.find((notice) => notice === done);

/** What the action's outcome says on the portal. */
const doneUrl = (portalUrl: string, result: ChangeResult, notice: PortalNotice) =>
  `${portalUrl}?done=${result.kind === "changed" ? notice : "not_done"}`;

/** An action on one of the link's subscriptions: from our page, and one this subscription offers now. */
export async function portalActionAnswer(
  request: HttpRequest,
  entry: PortalEntry,
  services: PortalPageDeps,
  place: PortalPlace,
): Promise<PageResult> {
  const { lang } = place;
  if (!formCameFromOurPage(request, services.links, place.token)) return refusedActionPage(lang);
  const action = actionsOf(entry.subscription, services.portalActions, lang).find(
    (offered) => offered.path === request.pathParameters?.action,
  );
  if (action === undefined) return unknownLinkPage(lang);
  return act(action.path, entry.subscription.subscription_id, services, place);
}

async function act(
  action: ActionPath,
  subscriptionId: string,
  services: PortalPageDeps,
  { portalUrl, lang }: PortalPlace,
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
