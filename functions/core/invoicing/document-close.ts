import type { BillingDocument } from "../base/documents";
import type { DocumentStore } from "../ports/document-store";
import { inTurn, markHeld } from "./sequence-turns";

// The close of a record that moves money — a paid ledger line, a succeeded refund — with the document it is
// finalized as (README, Invoices and credit notes: how numbers never skip): numbered, then written by the close's own
// conditional write, which accepts the number the next numbering may have written first and never another.

/** What a record closed by a conditional write on its status and lease has. */
interface Closable {
  readonly status: string;
  readonly lease_until?: string;
}

/** A record as its close leaves it: the closing fields over it, its lease gone, updated `at`. */
export function closedWith<R extends Closable>(
  record: R,
  closing: Partial<Omit<R, "lease_until">>,
  at: Date,
): Omit<R, "lease_until"> {
  const { lease_until: _lease, ...rest } = record;
  return { ...rest, ...closing, updated_at: at.toISOString() };
}

/** How one kind of record closes with its document. */
export interface DocumentClose<R extends Closable, D extends BillingDocument> {
  readonly kind: D["kind"];
  /**
   * The record's document: the one its number names, else numbered now. Absent: this close carries none (a refusal, a
   * card's verification).
   */
  readonly document?: (record: R) => Promise<D>;
  /** The close's conditional write, with its document: the closed record, or undefined when the record changed. */
  write(record: R, document: D | undefined): Promise<R | undefined>;
  read(record: R): Promise<R | undefined>;
  numberOf(record: R): string | undefined;
  holderOf(record: R): string;
}

/**
 * Closes `record`, numbered and written in one turn so the next numbering in this process finds its number held.
 * Twice at most: the next numbering may give the record its number while it closes, and the close is written again
 * with it; a number it took and does not hold is given up (void), for the next numbering to take over.
 */
export function closeWithDocument<R extends Closable, D extends BillingDocument>(
  record: R,
  close: DocumentClose<R, D>,
  store: Pick<DocumentStore, "voidDocument">,
): Promise<R | undefined> {
  const documentOf = close.document;
  if (documentOf === undefined) return close.write(record, undefined);
  return inTurn(close.kind, async () => {
    let current = record;
    for (let round = 0; round < 2; round += 1) {
      const document = await documentOf(current);
      const closed = await close.write(current, document);
      if (closed !== undefined) {
        markHeld(store, document);
        return closed;
      }
      const now = await close.read(current);
      const held = now === undefined ? undefined : close.numberOf(now);
      if (now === undefined || held === undefined || held === document.number) return undefined;
      await store.voidDocument(close.kind, document.number, close.holderOf(current));
      // Written again only while the record still is what the close expected (only its number written meanwhile).
      if (now.status !== current.status || now.lease_until !== current.lease_until) return undefined;
      current = now;
    }
    return undefined;
  });
}
