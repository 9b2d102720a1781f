import { invoiceListAnswer } from "../api/answers";
import { listDocumentsQuery } from "../api/document-schemas";
import { pageOrBadCursor } from "../api/errors";
import { type HttpRequest, type HttpResult, queryOf, serve } from "../api/http";
import { type DocumentQueryDeps, listInvoices } from "../core/invoicing/document-queries";

/** Invoices on a page when the caller names no limit. */
const DEFAULT_LIMIT = 20;

/** GET /v1/invoices?subscription_id=&external_id=&from=&to=&limit=&cursor=: one page, newest first, from indexes. */
export function run(request: HttpRequest, services: DocumentQueryDeps): Promise<HttpResult> {
  return serve(async () => {
    const { cursor, limit = DEFAULT_LIMIT, ...filter } = queryOf(request, listDocumentsQuery);
    return invoiceListAnswer(await pageOrBadCursor(() => listInvoices(filter, { limit, cursor }, services)));
  });
}
