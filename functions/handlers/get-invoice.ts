import { invoiceAnswer } from "../api/answers";
import { invoiceNumberParams } from "../api/document-schemas";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import type { DocumentStore } from "../core/ports/document-store";

/** GET /v1/invoices/{number}. */
export function run(
  request: HttpRequest,
  services: { readonly repository: Pick<DocumentStore, "getInvoice"> },
): Promise<HttpResult> {
  return serve(async () => {
    const { number } = pathOf(request, invoiceNumberParams);
    return invoiceAnswer(await services.repository.getInvoice(number));
  });
}
