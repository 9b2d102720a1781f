import type { CreditNote, Invoice } from "../base/documents";
import type { SubscriptionStore } from "../ports/billing-repository";
import type { DocumentPage, DocumentStore } from "../ports/document-store";

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

export async function listInvoices(
  filter: DocumentFilter,
  page: Page,
  deps: DocumentQueryDeps,
): Promise<DocumentPage<Invoice>> {
  const ids = await subscriptionsOf(filter, deps);
  if (ids?.length === 0) return { documents: [] };
  return deps.repository.listInvoices({ subscription_ids: ids, from: filter.from, to: filter.to }, page);
}

export async function listCreditNotes(
  filter: DocumentFilter,
  page: Page,
  deps: DocumentQueryDeps,
): Promise<DocumentPage<CreditNote>> {
  const ids = await subscriptionsOf(filter, deps);
  if (ids?.length === 0) return { documents: [] };
  return deps.repository.listCreditNotes({ subscription_ids: ids, from: filter.from, to: filter.to }, page);
}
