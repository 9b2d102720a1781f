import { creditNoteAnswer } from "../api/answers";
import { creditNoteNumberParams } from "../api/document-schemas";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import type { DocumentStore } from "../core/ports/document-store";

/** GET /v1/credit-notes/{number}. */
export function run(
  request: HttpRequest,
  services: { readonly repository: Pick<DocumentStore, "getCreditNote"> },
): Promise<HttpResult> {
  return serve(async () => {
    const { number } = pathOf(request, creditNoteNumberParams);
    return creditNoteAnswer(await services.repository.getCreditNote(number));
  });
}
