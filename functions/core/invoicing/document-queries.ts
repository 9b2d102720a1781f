import type { BillingDocument } from "../base/documents";
import type { SubscriptionStore } from "../ports/billing-repository";
import type { DocumentPage, DocumentQuery, DocumentStore } from "../ports/document-store";

// The merchant API's listings of invoices and credit notes: of a subscription, of a customer (every subscription
// carrying its external_id), or all; newest first, from indexes only.

export interface DocumentQueryDeps {
  readonly repository: Pick<SubscriptionStore, "listSubscriptions"> &
    Pick<DocumentStore, "listInvoices" | "listCreditNotes">;
}

export interface DocumentFilter {
  readonly subscription_id?: string;
  readonly external_id?: string;
  readonly from?: Date;
  readonly to?: Date;
}

type Page = { readonly limit: number; readonly cursor?: string };

/** Subscriptions listed per request while a customer's are gathered. */
const SUBSCRIPTION_PAGE = 100;

/** The subscriptions the filter names (undefined: all of them). */
async function subscriptionsOf(
  filter: DocumentFilter,
  deps: DocumentQueryDeps,
): Promise<readonly string[] | undefined> {
  if (filter.external_id === undefined)
    return filter.subscription_id === undefined ? undefined : [filter.subscription_id];
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.repository.listSubscriptions(
      { external_id: filter.external_id },
      { limit: SUBSCRIPTION_PAGE, cursor },
    );
    ids.push(...page.subscriptions.map((subscription) => subscription.subscription_id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return filter.subscription_id === undefined ? ids : ids.filter((id) => id === filter.subscription_id);
}

/** One page of the documents the filter names, from `list` (an empty page for a customer without subscriptions). */
async function pageOf<D extends BillingDocument>(
  filter: DocumentFilter,
  deps: DocumentQueryDeps,
  list: (query: DocumentQuery) => Promise<DocumentPage<D>>,
): Promise<DocumentPage<D>> {
  const ids = await subscriptionsOf(filter, deps);
  if (ids?.length === 0) return { documents: [] };
  return list({ subscription_ids: ids, from: filter.from, to: filter.to });
}

export const listInvoices = (filter: DocumentFilter, page: Page, deps: DocumentQueryDeps) =>
  pageOf(filter, deps, (query) => deps.repository.listInvoices(query, page));

export const listCreditNotes = (filter: DocumentFilter, page: Page, deps: DocumentQueryDeps) =>
  pageOf(filter, deps, (query) => deps.repository.listCreditNotes(query, page));
