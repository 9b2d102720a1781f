import type { HttpMethod } from "../../api/merchant-api-routes";

// The routes of our pages, on the pages' own HTTP API (no authorizer: a page checks its link itself). Each names the
// page it serves, so a handler dispatches on the route key API Gateway hands it.

export interface PageRoute {
  readonly method: HttpMethod;
  readonly path: string;
}

export const CHECKOUT_PAGE_ROUTES = {
  /** The checkout: what is bought and the pay button, then the outcome. */
  page: { method: "GET", path: "/pay/{token}" },
  /** Where the window sends the customer back (the real gateway posts a form; a GET is taken too). */
  returnPost: { method: "POST", path: "/pay/{token}/return" },
  returnGet: { method: "GET", path: "/pay/{token}/return" },
  /** Another try after a refused payment. */
  retry: { method: "POST", path: "/pay/{token}/retry" },
} as const satisfies Record<string, PageRoute>;

export const PORTAL_PAGE_ROUTES = {
  /** The customer's subscriptions, their charges and what may be done. */
  page: { method: "GET", path: "/portal/{token}" },
  /** An action on one subscription (card, retry, cancel, keep, resume). */
  action: { method: "POST", path: "/portal/{token}/subscriptions/{id}/{action}" },
  /** The window a new card is typed in, once its payment is prepared. */
  card: { method: "GET", path: "/portal/{token}/subscriptions/{id}/card" },
  /** Where the new card's window sends the customer back. */
  returnPost: { method: "POST", path: "/portal/{token}/return" },
  returnGet: { method: "GET", path: "/portal/{token}/return" },
  /** A paid charge's receipt: the gateway's page. */
  receipt: { method: "GET", path: "/portal/{token}/charges/{charge}/receipt" },
} as const satisfies Record<string, PageRoute>;

export const DOCUMENT_PAGE_ROUTES = {
  /** An invoice or a credit note, to read and print. */
  page: { method: "GET", path: "/documents/{token}" },
  /** Its PDF: stored once, handed out by a short presigned link. */
  pdf: { method: "GET", path: "/documents/{token}/pdf" },
} as const satisfies Record<string, PageRoute>;

/** The route key API Gateway puts on a request of this route. */
export const routeKeyOf = (route: PageRoute): string => `${route.method} ${route.path}`;
