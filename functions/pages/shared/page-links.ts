import { createHmac, timingSafeEqual } from "node:crypto";
import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";

// Our pages are reached by links we sign (no session, no cookie): a link names what it opens — a checkout's
// subscription, a customer's portal, an invoice or a credit note — and until when, under an HMAC key kept in Secrets Manager. A tampered, expired or
// foreign link verifies to nothing. The key may rotate: the first one signs, every one verifies.

export type LinkScope = "checkout" | "portal" | "document";

const claimsSchema = lazySchema(() =>
  z.object({
    /** What the link opens. */
    s: z.enum(["checkout", "portal", "document"]),
    /** Whose: a subscription id (checkout), the portal's subject (portal-sessions), a document (`<kind>:<number>`). */
    sub: z.string().min(1),
    /** Until when, in Unix seconds. */
    exp: z.number().int(),
    /** Where the portal's "back" leads, when the merchant named it. */
    ret: z.string().optional(),
    /** The language the merchant asked the pages in. */
    lang: z.string().optional(),
  }),
);
export type LinkClaims = z.infer<typeof claimsSchema>;

export type LinkReading =
  | { readonly kind: "valid"; readonly claims: LinkClaims }
  /** Ours and untampered, but past its time: what it named, so a page can say why it opens nothing. */
  | { readonly kind: "expired"; readonly claims: LinkClaims }
  | { readonly kind: "invalid" };

export interface PageLinksOptions {
  /** The HMAC keys: the first signs, each verifies (a rotation). */
  readonly keys: readonly string[];
  /** Where the pages are served (`<base>/pay/…`, `<base>/portal/…`). */
  readonly baseUrl: string;
  readonly now: () => Date;
}

const base64url = (bytes: Buffer | string) => Buffer.from(bytes).toString("base64url");

export function createPageLinks({ keys, baseUrl, now }: PageLinksOptions) {
  if (keys.length === 0) throw new Error("page links need a key");
  const mac = (key: string, text: string) => createHmac("sha256", key).update(text).digest();
  const macMatches = (text: string, given: string) => {
    const bytes = Buffer.from(given, "base64url");
    // Every key is tried, so the time taken says nothing about which matched.
    let matched = false;
    for (const key of keys) {
      const expected = mac(key, text);
      matched = (bytes.length === expected.length && timingSafeEqual(expected, bytes)) || matched;
    }
    return matched;
  };
  const root = baseUrl.replace(/\/+$/, "");

  const sign = (claims: LinkClaims): string => {
    const payload = base64url(JSON.stringify(claims));
    return `${payload}.${base64url(mac(keys[0] as string, payload))}`;
  };

  return {
    sign,
    /** Until when a link made now for `ttlMs` holds. */
    expiry: (ttlMs: number) => Math.floor((now().getTime() + ttlMs) / 1000),
    /** What a link's token says, if we signed it, for `scope`, and it has not expired. */
    read(token: string, scope: LinkScope): LinkReading {
      const [payload, signature, ...rest] = token.split(".");
      if (payload === undefined || signature === undefined || rest.length > 0) return { kind: "invalid" };
      if (!macMatches(payload, signature)) return { kind: "invalid" };
      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return { kind: "invalid" };
      }
      const claims = claimsSchema.safeParse(json);
      if (!claims.success || claims.data.s !== scope) return { kind: "invalid" };
      if (claims.data.exp * 1000 <= now().getTime()) return { kind: "expired", claims: claims.data };
      return { kind: "valid", claims: claims.data };
    },
    /** A page's URL: `<base>/<path of segments>`, the token one of them. */
    url: (...segments: readonly string[]) => `${root}/${segments.map(encodeURIComponent).join("/")}`,
    /**
     * The form token of a page's actions under a link: a POST must carry it (with its Origin ours), so a page of
     * another site cannot make the customer's browser act.
     */
    formToken: (token: string) => base64url(mac(keys[0] as string, `form:${token}`)),
    formTokenMatches: (token: string, given: string) => macMatches(`form:${token}`, given),
  };
}

export type PageLinks = ReturnType<typeof createPageLinks>;

/**
 * A hosted checkout's page and the return page its window sends the customer to, by subscription: each holds until
 * the checkout expires (`expiresAt`; to the second, never past it).
 */
export function checkoutLinksOf(links: PageLinks) {
  const token = (subscriptionId: string, expiresAt: string) =>
    links.sign({ s: "checkout", sub: subscriptionId, exp: Math.floor(Date.parse(expiresAt) / 1000) });
  return {
    pageUrl: (subscriptionId: string, expiresAt: string) =>
      links.url("pay", token(subscriptionId, expiresAt)),
    returnUrl: (subscriptionId: string, expiresAt: string) =>
      links.url("pay", token(subscriptionId, expiresAt), "return"),
  };
}

/** A portal link holds this long unless the merchant asks otherwise (POST /v1/portal-sessions expires_in_minutes). */
export const PORTAL_LINK_MS = 15 * 60_000;

/** Whose subscriptions a portal shows: one subscription, or every one of the merchant's customer (external_id). */
export type PortalSubject =
  | { readonly subscription_id: string; readonly external_id?: undefined }
  | { readonly external_id: string; readonly subscription_id?: undefined };

/** The link's `sub` claim of a portal subject, and back. */
export const portalClaimOf = (subject: PortalSubject): string =>
  subject.subscription_id !== undefined ? `sub:${subject.subscription_id}` : `ext:${subject.external_id}`;

export function portalSubjectOf(claim: string): PortalSubject | undefined {
  const [kind, ...rest] = claim.split(":");
  const value = rest.join(":");
  if (value === "") return undefined;
  if (kind === "sub") return { subscription_id: value };
  return kind === "ext" ? { external_id: value } : undefined;
}

/** A customer's portal link: its URL and until when it opens the portal. */
export function portalLinkOf(
  links: PageLinks,
  subject: PortalSubject,
  options: { readonly ttlMs?: number; readonly returnUrl?: string; readonly lang?: string } = {},
): { readonly url: string; readonly expires_at: string } {
  const exp = links.expiry(options.ttlMs ?? PORTAL_LINK_MS);
  const token = links.sign({
    s: "portal",
    sub: portalClaimOf(subject),
    exp,
    ...(options.returnUrl === undefined ? {} : { ret: options.returnUrl }),
    ...(options.lang === undefined ? {} : { lang: options.lang }),
  });
  return { url: links.url("portal", token), expires_at: new Date(exp * 1000).toISOString() };
}

/**
 * A document link holds half a year: it is mailed with the receipt and filed by the customer's finance team, and
 * the document it opens never changes. The API and the portal hand out a fresh one each time they are read.
 */
export const DOCUMENT_LINK_MS = 183 * 24 * 3_600_000;

/** An invoice or a credit note, as a link names it. */
export interface DocumentRef {
  readonly kind: "invoice" | "credit_note";
  readonly number: string;
}

/** A document's page (`<base>/documents/<token>`) and its PDF (`…/pdf`), in the language asked for. */
export function documentLinksOf(
  links: PageLinks,
  document: DocumentRef,
  options: { readonly ttlMs?: number; readonly lang?: string } = {},
): { readonly hosted_url: string; readonly pdf_url: string } {
  const token = links.sign({
    s: "document",
    sub: `${document.kind}:${document.number}`,
    exp: links.expiry(options.ttlMs ?? DOCUMENT_LINK_MS),
    ...(options.lang === undefined ? {} : { lang: options.lang }),
  });
  return { hosted_url: links.url("documents", token), pdf_url: links.url("documents", token, "pdf") };
}

/** The document a link's `sub` claim names; undefined for one that names none. */
export function documentRefOf(claim: string): DocumentRef | undefined {
  const [kind, number, ...rest] = claim.split(":");
  if (number === undefined || number === "" || rest.length > 0) return undefined;
  return kind === "invoice" || kind === "credit_note" ? { kind, number } : undefined;
}
