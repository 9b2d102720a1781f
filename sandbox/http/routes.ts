import type { IncomingHttpHeaders } from "node:http";
import type { AcquirerContext } from "../acquirer/acquirer";
import type { CallbackForm } from "../acquirer/callback-forms";
import type { Merchant } from "../state/merchant-config";
import { type ErrorStyle, partnerStyle, type Reply, rescodeStyle } from "./replies";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/**
 * - basic: `Authorization: Basic base64(apiKey + ":")` (payment, reconciliation, webhook management) → EC1000;
 * - partner-api-key: header `apiKey` = the merchant's partner API key (partner token endpoint);
 * - partner-bearer: `Authorization: Bearer <token issued by the partner token endpoint>` → AUTH_3001;
 * - none: sandbox-only routes.
 */
export type AuthKind = "basic" | "partner-api-key" | "partner-bearer" | "none";

/**
 * - object: a JSON object is required (EC1001 otherwise); optional: an empty body reads as {}; none: ignored;
 * - form: a browser's form post (application/x-www-form-urlencoded), read as its fields (the payment window's pages).
 */
export type BodyKind = "object" | "optional" | "none" | "form";

/** `/v1/payments/:transaction_id/cancel` → `{ transaction_id: string }`. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

export interface SandboxRequest<Params = Record<string, string>> {
  readonly method: HttpMethod;
  readonly path: string;
  /** Decoded path parameters. */
  readonly params: Params;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The JSON object sent, or a form's fields ({} for routes without a body). */
  readonly body: Readonly<Record<string, unknown>>;
  /** The body exactly as received. */
  readonly rawBody: string;
}

/**
 * Everything a handler may use: the acquirer's context (acquirer/acquirer.ts) plus the route and the merchant, the
 * authenticated one (absent only on auth "none" routes).
 */
export interface RouteContext<A extends AuthKind = AuthKind> extends AcquirerContext {
  readonly route: string;
  readonly merchant: A extends "none" ? Merchant | undefined : Merchant;
  /** The form of the next status_url callback (the sandbox's option; mixed by the mixedCallbackForm fault). */
  callbackForm(): CallbackForm;
}

export interface RouteDefinition<P extends string = string, A extends AuthKind = AuthKind> {
  /** Unique; names per-route fault overrides and counters ("payments.cancel"). */
  readonly name: string;
  readonly method: HttpMethod;
  /** Literal segments and `:param` segments. */
  readonly path: P;
  readonly auth: A;
  /** Default: "object" for POST and PUT, "none" otherwise. */
  readonly body?: BodyKind;
  /** Whether injected faults apply; default true (false for the sandbox's own routes). */
  readonly faults?: boolean;
  /** Error dialect; default partner for partner auth kinds, rescode otherwise. */
  readonly style?: ErrorStyle;
  handler(request: SandboxRequest<PathParams<P>>, context: RouteContext<A>): Reply | Promise<Reply>;
}

/** A route with its path parameters typed from the pattern: `defineRoute({ path: "/v1/x/:id", … })`. */
export function defineRoute<const P extends string, const A extends AuthKind>(
  route: RouteDefinition<P, A>,
): RouteDefinition {
  return route;
}

export function bodyKindOf(route: RouteDefinition): BodyKind {
  return route.body ?? (route.method === "POST" || route.method === "PUT" ? "object" : "none");
}

const PARTNER_PREFIX = "/api/v1/partner/";

function isPartnerAuth(auth: AuthKind): boolean {
  return auth === "partner-api-key" || auth === "partner-bearer";
}

export function styleOf(route: RouteDefinition): ErrorStyle {
  return route.style ?? (isPartnerAuth(route.auth) ? partnerStyle : rescodeStyle);
}

/** The dialect of a path no route claims (404/405): the partner API speaks its envelope. */
export function styleOfPath(path: string): ErrorStyle {
  return path.startsWith(PARTNER_PREFIX) ? partnerStyle : rescodeStyle;
}

type Segment = { readonly literal: string } | { readonly param: string };

interface CompiledRoute {
  readonly route: RouteDefinition;
  readonly segments: readonly Segment[];
  /** Literal segments win over parameters when two patterns match. */
  readonly literals: number;
  /** The pattern with parameter names erased: two routes with the same shape and method collide. */
  readonly shape: string;
}

function compile(route: RouteDefinition): CompiledRoute {
  if (!route.path.startsWith("/")) throw new Error(`route ${route.name}: path must start with /`);
  const segments: Segment[] = route.path
    .slice(1)
    .split("/")
    .map((part) => (part.startsWith(":") ? { param: part.slice(1) } : { literal: part }));
  const shape = segments.map((segment) => ("param" in segment ? ":" : segment.literal)).join("/");
  return { route, segments, literals: segments.filter((segment) => "literal" in segment).length, shape };
}

function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] ?? "";
    if ("literal" in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === "") return undefined;
      try {
        params[segment.param] = decodeURIComponent(part);
      } catch {
        return undefined; // malformed percent-encoding addresses nothing
      }
    }
  }
  return params;
}

export type RouteMatch =
  | { readonly kind: "found"; readonly route: RouteDefinition; readonly params: Record<string, string> }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: "not-found" };

/** The routes of one sandbox: lookup by method and path, with name and shape collisions refused. */
export class RouteTable {
  readonly #routes: CompiledRoute[] = [];

  add(route: RouteDefinition): void {
    const compiled = compile(route);
    for (const existing of this.#routes) {
      if (existing.route.name === route.name) throw new Error(`duplicate route name ${route.name}`);
      if (existing.route.method === route.method && existing.shape === compiled.shape) {
        throw new Error(`route ${route.name} collides with ${existing.route.name}`);
      }
    }
    this.#routes.push(compiled);
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.slice(1).split("/");
    let best: { route: CompiledRoute; params: Record<string, string> } | undefined;
    const allowed = new Set<HttpMethod>();
    for (const compiled of this.#routes) {
      const params = matchSegments(compiled.segments, parts);
      if (!params) continue;
      allowed.add(compiled.route.method);
      if (compiled.route.method !== method) continue;
      if (!best || compiled.literals > best.route.literals) best = { route: compiled, params };
    }
    if (best) return { kind: "found", route: best.route.route, params: best.params };
    return allowed.size > 0 ? { kind: "method-not-allowed", allowed: [...allowed] } : { kind: "not-found" };
  }

  names(): string[] {
    return this.#routes.map((compiled) => compiled.route.name);
  }
}
