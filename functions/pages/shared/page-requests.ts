import type { HttpRequest } from "../../api/http";
import { headerOf, rawBodyOf } from "../../lambda/http-event";
import { notePage, type PageResult } from "./page-layout";
import type { LinkClaims, LinkScope, PageLinks } from "./page-links";
import { PAGE_TEXT, type PageLang, pageLangOf } from "./page-text";

// What every page handler reads of a request: the link in its path, the language asked for, and — for an action —
// whether the form really came from our page.

/** What every page is served with: the links that open our pages, and the merchant's name they show. */
export interface PageSettings {
  readonly links: PageLinks;
  readonly merchantName?: string;
}

/** The page's language before anything is read: asked for (`?lang=`), else the browser's. */
export const askedLangOf = (request: HttpRequest, stored?: string): PageLang =>
  pageLangOf(request.queryStringParameters?.lang, stored, headerOf(request, "accept-language"));

export type LinkOpening =
  | { readonly ok: true; readonly token: string; readonly claims: LinkClaims }
  /** `expired`: what an expired link of ours named, for a page that says more than that it expired. */
  | { readonly ok: false; readonly page: PageResult; readonly expired?: LinkClaims };

/** The path's link, read for `scope`: a tampered, foreign or expired one is a 403 page saying so. */
export function openLink(request: HttpRequest, links: PageLinks, scope: LinkScope): LinkOpening {
  const token = request.pathParameters?.token ?? "";
  const reading = links.read(token, scope);
  if (reading.kind === "valid") return { ok: true, token, claims: reading.claims };
  const text = PAGE_TEXT[askedLangOf(request)];
  if (reading.kind === "expired")
    return {
      ok: false,
      page: notePage(403, askedLangOf(request), text.expiredTitle, text.expiredNote),
      expired: reading.claims,
    };
  return { ok: false, page: notePage(403, askedLangOf(request), text.invalidTitle, text.invalidNote) };
}

/** A link whose subject is gone (never ours, or removed): the same page as a link we never signed. */
export function unknownLinkPage(lang: PageLang): PageResult {
  const text = PAGE_TEXT[lang];
  return notePage(404, lang, text.invalidTitle, text.invalidNote);
}

/**
 * Whether an action's POST came from our own page under this link: the browser says it is same-origin (Fetch
 * metadata, Origin) and the form carries the link's form token. Anything else is refused before it changes anything.
 */
export function formCameFromOurPage(request: HttpRequest, links: PageLinks, token: string): boolean {
  const site = headerOf(request, "sec-fetch-site");
  if (site !== undefined && site !== "same-origin") return false;
  const origin = headerOf(request, "origin");
  if (origin !== undefined && origin !== new URL(links.url()).origin) return false;
  const form = new URLSearchParams(rawBodyOf(request).toString("utf8"));
  return links.formTokenMatches(token, form.get("form_token") ?? "");
}

/** An action refused as not coming from our page. */
export function refusedActionPage(lang: PageLang): PageResult {
  const text = PAGE_TEXT[lang];
  return notePage(403, lang, text.refusedTitle, text.refusedNote);
}
