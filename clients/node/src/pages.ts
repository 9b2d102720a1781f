import type { BillingClient } from "./client.js";
import { ok } from "./client.js";
import type { paths } from "./openapi-types.js";

// Cursor iteration over every list of the merchant API: a list answers `{data, next_cursor}`, and the next page is
// asked with `cursor` set to it until it is null.

type JsonOf<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type PageOf<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer Answer } } }
  ? JsonOf<Answer>
  : never;

/** The paths whose GET answers a page. */
export type ListPath = {
  [P in Extract<keyof paths, string>]: PageOf<P> extends { data: unknown[]; next_cursor: string | null }
    ? P
    : never;
}[Extract<keyof paths, string>];

/** One item of a list. */
export type ListItem<P extends ListPath> = PageOf<P> extends { data: (infer Item)[] } ? Item : never;

type Parameters<P extends ListPath> = paths[P] extends { get: { parameters: infer Given } } ? Given : never;
/** A list's parameters but its cursor (which the iteration sets). */
export type ListParams<P extends ListPath> = {
  [K in keyof Parameters<P> as K extends "header" | "cookie" ? never : K]: K extends "query"
    ? Omit<NonNullable<Parameters<P>[K]>, "cursor">
    : Parameters<P>[K];
};

type PageRequest = (
  path: string,
  init: { params: { path?: unknown; query: Record<string, unknown> } },
) => Promise<{ data?: { data: unknown[]; next_cursor: string | null }; error?: unknown; response: Response }>;

/**
 * Every item of a list, page after page: `for await (const subscription of listAll(billing, "/v1/subscriptions",
 * { query: { status: "past_due" } }))`.
 */
export async function* listAll<P extends ListPath>(
  client: BillingClient,
  path: P,
  params?: ListParams<P>,
): AsyncGenerator<ListItem<P>> {
  const get = client.GET as unknown as PageRequest;
  const given = (params ?? {}) as { path?: unknown; query?: Record<string, unknown> };
  let cursor: string | null | undefined;
  do {
    const query = { ...given.query, ...(cursor ? { cursor } : {}) };
    const page = await ok(get(path, { params: { ...given, query } }));
    for (const item of page.data) yield item as ListItem<P>;
    cursor = page.next_cursor;
  } while (cursor);
}
