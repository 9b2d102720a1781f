import type { BillingDocument, CreditNote, Invoice } from "../../functions/core/base/documents";
import type { ChargeAttempt, RefundRecord } from "../../functions/core/base/model";
import { toCents } from "../../functions/core/base/money";

// The invoices' audit of the chaos run (README, Invoices): one invoice per paid charge and one credit note per
// succeeded refund, each for the amount that moved and its figures adding up to it, and every sequence without a gap
// or a repeat.

export interface DocumentRecords {
  readonly attempts: readonly ChargeAttempt[];
  readonly refunds: readonly RefundRecord[];
  /** Every finalized document of the stack (those of other subscriptions count in the sequences only). */
  readonly invoices: readonly Invoice[];
  readonly creditNotes: readonly CreditNote[];
}

/** A charge that moved money: paid, and not a card's verification (given back whole, never invoiced). */
const invoiced = (line: ChargeAttempt) => line.status === "succeeded" && line.verification !== true;

/** Numbers skipped or given twice in each prefix's sequence. */
function sequenceGaps(documents: readonly BillingDocument[]): string[] {
  const byPrefix = new Map<string, number[]>();
  for (const document of documents)
    byPrefix.set(document.prefix, [...(byPrefix.get(document.prefix) ?? []), document.sequence]);
  return [...byPrefix].flatMap(([prefix, sequences]) => {
    const sorted = [...sequences].sort((a, b) => a - b);
    const wrong = sorted.filter((sequence, index) => sequence !== index + 1);
    return wrong.length === 0 ? [] : [`${prefix}: ${sorted.length} numbers, first out of place ${wrong[0]}`];
  });
}

/** Each holder against the document that names it, both ways, and the amounts they carry. */
function matched<H, D extends BillingDocument>(
  holders: readonly H[],
  documents: readonly D[],
  key: { readonly holder: (holder: H) => string; readonly document: (document: D) => string },
  numberOf: (holder: H) => string | undefined,
  amountOf: (holder: H) => string,
): string[] {
  const byHolder = new Map(documents.map((document) => [key.document(document), document]));
  const problems: string[] = [];
  for (const holder of holders) {
    const id = key.holder(holder);
    const document = byHolder.get(id);
    if (document === undefined || numberOf(holder) !== document.number)
      problems.push(`${id}: holds ${numberOf(holder) ?? "no number"}, listed ${document?.number ?? "none"}`);
    else if (toCents(document.total) !== toCents(amountOf(holder)))
      problems.push(`${document.number}: total ${document.total}, ${id} moved ${amountOf(holder)}`);
    byHolder.delete(id);
  }
  for (const [id, document] of byHolder)
    problems.push(`${document.number}: names ${id}, which moved no money`);
  return problems;
}

/**
 * Whether a document's figures add up: its lines to the subtotal, and the subtotal less the discount plus the taxes
 * added on top to the total.
 */
function figuresAddUp(document: BillingDocument): string[] {
  const lines = document.lines.reduce((sum, line) => sum + toCents(line.amount), 0);
  const added = document.tax
    .filter((line) => !line.inclusive)
    .reduce((sum, line) => sum + toCents(line.amount), 0);
  const total = toCents(document.subtotal) - toCents(document.discount) + added;
  return lines === toCents(document.subtotal) && total === toCents(document.total)
    ? []
    : [
        `${document.number}: lines, subtotal ${document.subtotal}, discount and taxes do not make ${document.total}`,
      ];
}

export function auditDocuments(records: DocumentRecords): string[] {
  const audited = new Set(records.attempts.map((line) => line.subscription_id));
  const ours = <D extends BillingDocument>(documents: readonly D[]) =>
    documents.filter((document) => audited.has(document.subscription_id));
  const counted = new Set(records.attempts.filter(invoiced).map((line) => line.order_id));
  const refunds = records.refunds.filter(
    (refund) => refund.status === "succeeded" && (counted.has(refund.order_id) || refund.credit_note_number),
  );
  return [
    ...matched(
      records.attempts.filter(invoiced),
      ours(records.invoices),
      { holder: (line) => line.order_id, document: (invoice) => invoice.order_id },
      (line) => line.invoice_number,
      (line) => line.amount,
    ),
    ...matched(
      refunds,
      ours(records.creditNotes),
      { holder: (refund) => refund.refund_id, document: (note) => note.refund_id },
      (refund) => refund.credit_note_number,
      (refund) => refund.amount,
    ),
    ...sequenceGaps(records.invoices),
    ...sequenceGaps(records.creditNotes),
    ...[...ours(records.invoices), ...ours(records.creditNotes)].flatMap(figuresAddUp),
  ];
}
