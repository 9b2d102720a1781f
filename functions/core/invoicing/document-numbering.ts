import { type BillingDocument, type CreditNote, holderOf, type Invoice } from "../base/documents";
import { finalizedInvoiceEvent } from "../base/events";
import type { AttemptStatus } from "../base/model";
import type { LedgerStore, RefundStore, SubscriptionStore } from "../ports/billing-repository";
import type { DocumentStore } from "../ports/document-store";
import { heldAtLeast, markHeld } from "./sequence-turns";

// Gap-free numbering without transactions (README, Invoices: how numbers never skip). The documents of a prefix are
// its sequence: number n + 1 is written (create-only) only after number n's holder — the paid line or succeeded
// refund it was numbered for — is seen to hold n. A holder still closing is given n by whoever numbers next (a write
// on the holder that only succeeds while it has no number); a holder that took another number leaves n void, and the
// next numbering takes n over. So every number below the last is held, none twice, whatever crashes or races.

export interface NumberingDeps {
  readonly repository: DocumentStore &
    Pick<LedgerStore, "getAttempt" | "updateAttempt"> &
    Pick<RefundStore, "getRefund" | "updateRefund"> &
    Pick<SubscriptionStore, "getSubscription">;
}

/** Lines closed unpaid for good: a number numbered for one can never be held (a voided line can still be paid late). */
const REFUSED: readonly AttemptStatus[] = ["declined", "failed"];

/**
 * Numberings racing for one prefix: each round one of them takes the next number, so a numbering among k others waits
 * about k rounds, and one that keeps losing to newcomers retries up to this often before giving up (its close fails
 * and is finished later: the request again, or the attempt sweep).
 */
const MAX_ROUNDS = 1000;

/**
 * The document `draft` makes for `holder` (its order_id or refund_id), numbered next in `prefix`: the holder's own last document when a numbering
 * of it came before (a retry), else a new number. `draft` is given the number's sequence.
 */
export async function numberDocument<D extends BillingDocument>(
  kind: D["kind"],
  prefix: string,
  holder: string,
  draft: (sequence: number) => D,
  deps: NumberingDeps,
): Promise<BillingDocument> {
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const last = await deps.repository.lastDocument(kind, prefix);
    if (last === undefined) {
      const first = draft(1);
      if (await deps.repository.createDocument(first)) return first;
      continue;
    }
    if (last.status === "finalized" && holderOf(last) === holder) return last;
    const held =
      last.status === "void"
        ? "elsewhere"
        : last.sequence <= heldAtLeast(deps.repository, kind, prefix)
          ? "held"
          : await heldBy(last, deps);
    if (held === "held" || held === "given_now") markHeld(deps.repository, last);
    if (held === "elsewhere") {
      const taken = draft(last.sequence);
      if (await deps.repository.replaceDocument(taken, holderOf(last))) return taken;
      continue;
    }
    if (held === "given_now" || held === "held") {
      const next = draft(last.sequence + 1);
      if (await deps.repository.createDocument(next)) return next;
    }
  }
  throw new Error(`numbering ${prefix}: too many concurrent numberings, try again`);
}

/**
 * Whether `document`'s holder holds its number: held; given it now (it had none yet: still closing, or it crashed
 * before its close); or holds another or can never hold one (refused, or gone), so the number is free; or it changed
 * as we wrote ("raced": read again).
 */
async function heldBy(
  document: BillingDocument,
  deps: NumberingDeps,
): Promise<"held" | "given_now" | "elsewhere" | "raced"> {
  // Twice: a write that lost to the holder's own close (or another numbering's write) reads the holder again.
  for (let read = 0; read < 2; read += 1) {
    const held =
      document.kind === "invoice" ? await lineHolds(document, deps) : await refundHolds(document, deps);
    if (held !== "raced") return held;
  }
  return "raced";
}

async function lineHolds(document: Invoice, deps: NumberingDeps) {
  const line = await deps.repository.getAttempt(document);
  if (line?.invoice_number === document.number) return "held";
  if (line === undefined || line.invoice_number !== undefined || REFUSED.includes(line.status))
    return "elsewhere";
  // A line already closed paid (a gateway-run charge, finalized by a second write that has not come yet) is finalized
  // by this write: it announces the invoice, as that second write would have.
  const subscription =
    line.status === "succeeded" ? await deps.repository.getSubscription(line.subscription_id) : undefined;
  const given = await deps.repository.updateAttempt(line, {
    expect: { status: line.status, lease_until: line.lease_until, invoice_number: null },
    set: { invoice_number: document.number },
    ...(subscription === undefined ? {} : { events: [finalizedInvoiceEvent(document, subscription)] }),
  });
  return given ? "given_now" : "raced";
}

async function refundHolds(document: CreditNote, deps: NumberingDeps) {
  const refund = await deps.repository.getRefund(document.refund_id);
  if (refund?.credit_note_number === document.number) return "held";
  if (refund === undefined || refund.credit_note_number !== undefined || refund.status === "failed")
    return "elsewhere";
  const given = await deps.repository.updateRefund(refund.refund_id, {
    expect: { status: refund.status, lease_until: refund.lease_until, credit_note_number: null },
    set: { credit_note_number: document.number },
  });
  return given ? "given_now" : "raced";
}
