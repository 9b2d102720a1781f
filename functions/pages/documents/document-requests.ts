import type { HttpRequest } from "../../api/http";
import type { BillingDocument } from "../../core/base/documents";
import type { DocumentFiles } from "../../core/ports/document-files";
import type { DocumentStore } from "../../core/ports/document-store";
import { type PageResult, seeOther } from "../shared/page-layout";
import { documentRefOf, type PageLinks } from "../shared/page-links";
import { askedLangOf, openLink, unknownLinkPage } from "../shared/page-requests";
import { DOCUMENT_PAGE_ROUTES, routeKeyOf } from "../shared/page-routes";
import { documentPage } from "./document-page";
import { type DocumentFonts, renderDocumentPdf } from "./document-pdf";
import { documentSheetOf } from "./document-sheet";

// An invoice's or a credit note's page and PDF, under its link (README, Invoices and credit notes). The PDF is
// rendered on its first ask, kept in the documents' bucket per language, and handed out by a presigned link: a paid
// charge costs no rendering, and a document never changes, so a file written twice holds the same.

export interface DocumentPageDeps {
  readonly links: PageLinks;
  readonly repository: Pick<DocumentStore, "getInvoice" | "getCreditNote">;
  readonly files: DocumentFiles;
  readonly fonts: () => Promise<DocumentFonts>;
}

/** A request of DOCUMENT_PAGE_ROUTES (by its route key), answered under the link in its path. */
export async function documentAnswer(request: HttpRequest, deps: DocumentPageDeps): Promise<PageResult> {
  const link = openLink(request, deps.links, "document");
  if (!link.ok) return link.page;
  const lang = askedLangOf(request, link.claims.lang);
  const ref = documentRefOf(link.claims.sub);
  const document: BillingDocument | undefined =
    ref === undefined
      ? undefined
      : ref.kind === "invoice"
        ? await deps.repository.getInvoice(ref.number)
        : await deps.repository.getCreditNote(ref.number);
  if (document === undefined) return unknownLinkPage(lang);
  const sheet = documentSheetOf(document, lang);
  if (request.routeKey !== routeKeyOf(DOCUMENT_PAGE_ROUTES.pdf))
    return documentPage(sheet, `${deps.links.url("documents", link.token, "pdf")}?lang=${lang}`);

  const key = `${document.kind}/${document.number}/${lang}.pdf`;
  if (!(await deps.files.has(key)))
    await deps.files.store(key, await renderDocumentPdf(sheet, await deps.fonts()), "application/pdf");
  return seeOther(await deps.files.link(key, `${document.number}.pdf`));
}
