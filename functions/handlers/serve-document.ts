import type { HttpRequest } from "../api/http";
import { type DocumentPageDeps, documentAnswer } from "../pages/documents/document-requests";
import { type PageResult, servePage } from "../pages/shared/page-layout";
import { askedLangOf } from "../pages/shared/page-requests";

/**
 * An invoice or a credit note for the customer (README, Invoices and credit notes): GET /documents/{token} is its
 * page, GET /documents/{token}/pdf its PDF (rendered once, then a presigned link to the stored file).
 */
export function run(request: HttpRequest, services: DocumentPageDeps): Promise<PageResult> {
  return servePage(askedLangOf(request), () => documentAnswer(request, services));
}
