import { creditNoteListAnswer } from "../api/answers";
import { listDocumentsQuery } from "../api/document-schemas";
import { pageOrBadCursor } from "../api/errors";
import { type HttpRequest, type HttpResult, queryOf, serve } from "../api/http";
import { type DocumentQueryDeps, listCreditNotes } from "../core/invoicing/document-queries";

/** Credit notes on a page when the caller names no limit. */
const DEFAULT_LIMIT = 20;

/** GET /v1/credit-notes?subscription_id=&external_id=&from=&to=&limit=&cursor=: one page, newest first. */
export function run(request: HttpRequest, services: DocumentQueryDeps): Promise<HttpResult> {
  return serve(async () => {
    const { cursor, limit = DEFAULT_LIMIT, ...filter } = queryOf(request, listDocumentsQuery);
    return creditNoteListAnswer(
      await pageOrBadCursor(() => listCreditNotes(filter, { limit, cursor }, services)),
    );
  });
}
