import type { HttpMethod } from "../api/merchant-api-routes";

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

/** The route key API Gateway puts on a request of this route. */
export const routeKeyOf = (route: PageRoute): string => `${route.method} ${route.path}`;
