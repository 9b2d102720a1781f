import type { BillingDocument, DocumentKind } from "../base/documents";

// Numberings of one kind take turns within a process (README, Invoices and credit notes: contention). A sequence has
// one next number, so numberings racing for it lose all but one round and each loser pays a read and a failed write
// per round: in turn, a close numbers and writes before the next one reads the last, and finds it held. Processes
// still race one another; the numbering settles that (document-numbering.ts), at a price only while they collide.

const turns = new Map<DocumentKind, Promise<void>>();

/** Runs `work` once every earlier turn of `kind` in this process has finished (whatever its outcome). */
export async function inTurn<T>(kind: DocumentKind, work: () => Promise<T>): Promise<T> {
  const before = turns.get(kind) ?? Promise.resolve();
  let finish = () => {};
  const mine = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const queued = before.then(() => mine);
  turns.set(kind, queued);
  await before;
  try {
    return await work();
  } finally {
    finish();
    if (turns.get(kind) === queued) turns.delete(kind);
  }
}

/**
 * The highest number of each sequence known held, per store (a number once held stays held, and every number below a
 * held one is held: the next is only ever written after its predecessor is): numbering reads no holder at or below it.
 */
const knownHeld = new WeakMap<object, Map<string, number>>();

export function heldAtLeast(store: object, kind: DocumentKind, prefix: string): number {
  return knownHeld.get(store)?.get(`${kind}#${prefix}`) ?? 0;
}

export function markHeld(
  store: object,
  document: Pick<BillingDocument, "kind" | "prefix" | "sequence">,
): void {
  const known = knownHeld.get(store) ?? new Map<string, number>();
  knownHeld.set(store, known);
  const key = `${document.kind}#${document.prefix}`;
  known.set(key, Math.max(known.get(key) ?? 0, document.sequence));
}
