import { type BillingDocument, holderOf } from "../base/documents";
import type { AttemptStatus } from "../base/model";
import type { LedgerStore, RefundStore } from "../ports/billing-repository";
import type { DocumentStore } from "../ports/document-store";

// Gap-free numbering without transactions (README, Invoices: how numbers never skip). The documents of a prefix are
// its sequence: number n + 1 is written (create-only) only after number n's holder — the paid line or succeeded
// refund it was numbered for — is seen to hold n. A holder still closing is given n by whoever numbers next (a write
// on the holder that only succeeds while it has no number); a holder that took another number leaves n void, and the
// next numbering takes n over. So every number below the last is held, none twice, whatever crashes or races.

export interface NumberingDeps {
  readonly repository: DocumentStore &
    Pick<LedgerStore, "getAttempt" | "updateAttempt"> &
    Pick<RefundStore, "getRefund" | "updateRefund">;
}

/** Lines closed unpaid for good: a number numbered for one can never be held (a voided line can still be paid late). */
const REFUSED: readonly AttemptStatus[] = ["declined", "failed"];

/** Numberings racing for one prefix retry at most this often before giving up (the caller's message comes back). */
const MAX_ROUNDS = 50;

/**
 * The document `draft` makes for its holder, numbered next in `prefix`: the holder's own last document when a numbering
 * of it came before (a retry), else a new number. `draft` is given the number's sequence.
 */
export async function numberDocument<D extends BillingDocument>(
  kind: D["kind"],
  prefix: string,
  draft: (sequence: number) => D,
  deps: NumberingDeps,
): Promise<BillingDocument> {
  const holder = holderOf(draft(1));
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const last = await deps.repository.lastDocument(kind, prefix);
    if (last === undefined) {
      const first = draft(1);
      if (await deps.repository.createDocument(first)) return first;
      continue;
    }
    if (last.status === "finalized" && holderOf(last) === holder) return last;
    const held = last.status === "void" ? "elsewhere" : await heldBy(last, deps);
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
  if (document.kind === "invoice") {
    const line = await deps.repository.getAttempt(document);
    if (line?.invoice_number === document.number) return "held";
    if (line === undefined || line.invoice_number !== undefined || REFUSED.includes(line.status))
      return "elsewhere";
    const given = await deps.repository.updateAttempt(line, {
      expect: { status: line.status, lease_until: line.lease_until, invoice_number: null },
      set: { invoice_number: document.number },
    });
    return given ? "given_now" : "raced";
  }
  const refund = await deps.repository.getRefund(document.refund_id);
  if (refund?.credit_note_number === document.number) return "held";
  const free = refund === undefined || refund.credit_note_number !== undefined || refund.status === "failed";
  if (free) return "elsewhere";
  const given = await deps.repository.updateRefund(refund.refund_id, {
    expect: { status: refund.status, lease_until: refund.lease_until, credit_note_number: null },
    set: { credit_note_number: document.number },
  });
  return given ? "given_now" : "raced";
}
