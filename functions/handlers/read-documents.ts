import { creditNoteAnswer, creditNoteListAnswer, invoiceAnswer, invoiceListAnswer } from "../api/answers";
import { creditNoteNumberParams, invoiceNumberParams, listDocumentsQuery } from "../api/document-schemas";
import { pageOrBadCursor } from "../api/errors";
import { type HttpRequest, type HttpResult, pathOf, queryOf, serve } from "../api/http";
import type { BillingDocument } from "../core/base/documents";
import { type DocumentQueryDeps, listCreditNotes, listInvoices } from "../core/invoicing/document-queries";
import type { DocumentStore } from "../core/ports/document-store";
import { documentLinksOf, type PageLinks } from "../pages/shared/page-links";

/** Documents on a page when the caller names no limit. */
const DEFAULT_LIMIT = 20;

type Services = {
  readonly repository: DocumentQueryDeps["repository"] & Pick<DocumentStore, "getInvoice" | "getCreditNote">;
  readonly links: PageLinks;
};

/**
 * The invoices and credit notes (README, Invoices and credit notes), one function for their four reads:
 * GET /v1/invoices and /v1/credit-notes (?subscription_id=&external_id=&from=&to=&limit=&cursor=: one page, newest
 * first, from indexes) and GET /v1/invoices/{number}, /v1/credit-notes/{number}. Each carries fresh signed links to
 * its page and PDF (serve-document).
 */
export function run(request: HttpRequest, services: Services): Promise<HttpResult> {
  const urls = (document: BillingDocument) => documentLinksOf(services.links, document);
  return serve(async () => {
    switch (request.routeKey) {
      case "GET /v1/invoices/{number}":
        return invoiceAnswer(
          await services.repository.getInvoice(pathOf(request, invoiceNumberParams).number),
          urls,
        );
      case "GET /v1/credit-notes/{number}": {
        const { number } = pathOf(request, creditNoteNumberParams);
        return creditNoteAnswer(await services.repository.getCreditNote(number), urls);
      }
      case "GET /v1/credit-notes": {
        const { cursor, limit = DEFAULT_LIMIT, ...filter } = queryOf(request, listDocumentsQuery);
        return creditNoteListAnswer(
          await pageOrBadCursor(() => listCreditNotes(filter, { limit, cursor }, services)),
          urls,
        );
      }
      default: {
        const { cursor, limit = DEFAULT_LIMIT, ...filter } = queryOf(request, listDocumentsQuery);
        return invoiceListAnswer(
          await pageOrBadCursor(() => listInvoices(filter, { limit, cursor }, services)),
          urls,
        );
      }
    }
  });
}
