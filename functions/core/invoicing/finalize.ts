import type { ChargePolicy } from "../base/charge-policy";
import type { CreditNote, Invoice } from "../base/documents";
import type { ChargeAttempt, RefundRecord, Subscription } from "../base/model";
import type { Clock } from "../ports/clock";
import {
  creditNotePrefix,
  draftCreditNote,
  draftInvoice,
  type Issue,
  invoicePrefix,
} from "./document-drafts";
import { type NumberingDeps, numberDocument } from "./document-numbering";

// The invoice a paid line closes with, and the credit note a succeeded refund closes with (README, Invoices). Each is
// numbered before the close that names it; the close writes the number (document-numbering.ts says why none skips).

export interface InvoicingDeps extends NumberingDeps {
  readonly clock: Clock;
  readonly policy: Pick<ChargePolicy, "invoicing">;
}

const issueOf = (on: string, deps: InvoicingDeps): Issue => ({
  policy: deps.policy.invoicing,
  on: new Date(on),
  at: deps.clock.now(),
});

/**
 * The invoice of a paid line (its state as it closes): the one its number names when it has one (the next numbering
 * gave it, or a close before this one), else numbered now.
 */
export async function invoiceFor(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: InvoicingDeps,
): Promise<Invoice> {
  if (line.invoice_number !== undefined)
    return existing(await deps.repository.getInvoice(line.invoice_number));
  const issue = issueOf(line.created_at, deps);
  const draft = (sequence: number) => draftInvoice(subscription, line, issue, sequence);
  return asKind("invoice", await numberDocument("invoice", invoicePrefix(issue), line.order_id, draft, deps));
}

/** The credit note of a succeeded refund of `charge`, as invoiceFor, against the charge's invoice (one read). */
export async function creditNoteFor(
  subscription: Subscription,
  refund: RefundRecord,
  charge: ChargeAttempt,
  deps: InvoicingDeps,
): Promise<CreditNote> {
  if (refund.credit_note_number !== undefined)
    return existing(await deps.repository.getCreditNote(refund.credit_note_number));
  const issue = issueOf(refund.created_at, deps);
  const invoice =
    charge.invoice_number === undefined ? undefined : await deps.repository.getInvoice(charge.invoice_number);
  const draft = (sequence: number) => draftCreditNote(subscription, refund, charge, issue, sequence, invoice);
  return asKind(
    "credit_note",
    await numberDocument("credit_note", creditNotePrefix(issue), refund.refund_id, draft, deps),
  );
}

/** A number is written on its holder only after its document: one missing is a broken table, never skipped. */
function existing<D>(document: D | undefined): D {
  if (document === undefined) throw new Error("a document named by its holder is missing");
  return document;
}

function asKind<K extends "invoice" | "credit_note">(
  kind: K,
  document: Invoice | CreditNote,
): Extract<Invoice | CreditNote, { kind: K }> {
  if (document.kind !== kind) throw new Error(`numbered a ${document.kind} as a ${kind}`);
  return document as Extract<Invoice | CreditNote, { kind: K }>;
}
