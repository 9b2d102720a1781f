import type { BillingDocument, CreditNote, DocumentKind, Invoice } from "../base/documents";

/** Which documents a listing holds: one subscription's or some subscriptions' (a customer's), or all; by issue time. */
export interface DocumentQuery {
  /** Absent: every document of the kind. */
  readonly subscription_ids?: readonly string[];
  /** Issued at or after. */
  readonly from?: Date;
  /** Issued before. */
  readonly to?: Date;
}

export interface DocumentPage<D extends BillingDocument> {
  /** Newest first. */
  readonly documents: readonly D[];
  readonly cursor?: string;
}

/**
 * Invoices and credit notes, each kind numbered per prefix (README, Invoices: how numbers never skip). Void documents
 * are kept for their number's sake but never listed or found.
 */
export interface DocumentStore {
  /** The document holding the highest number of the prefix, void or not (read strongly consistent); none: undefined. */
  lastDocument(kind: DocumentKind, prefix: string): Promise<BillingDocument | undefined>;
  /** Writes a document under a number never used: false when the number is taken. */
  createDocument(document: BillingDocument): Promise<boolean>;
  /**
   * Writes a document over the one holding its number, only if that one is still the void or finalized document of
   * `holder` (the order_id or refund_id it was numbered for): false otherwise.
   */
  replaceDocument(document: BillingDocument, holder: string): Promise<boolean>;
  /** Marks the document of `number` void, only if it is still `holder`'s. */
  voidDocument(kind: DocumentKind, number: string, holder: string): Promise<void>;
  getInvoice(number: string): Promise<Invoice | undefined>;
  getCreditNote(number: string): Promise<CreditNote | undefined>;
  /** A page of finalized documents, newest first, from indexes (never a Scan). */
  listInvoices(
    query: DocumentQuery,
    page: { readonly limit: number; readonly cursor?: string },
  ): Promise<DocumentPage<Invoice>>;
  listCreditNotes(
    query: DocumentQuery,
    page: { readonly limit: number; readonly cursor?: string },
  ): Promise<DocumentPage<CreditNote>>;
}
