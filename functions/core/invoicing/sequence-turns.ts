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
 * What this process knows of each sequence, per store: the highest number known held (a number once held stays held,
 * and every number below a held one is held: the next is only ever written after its predecessor is), so numbering
 * reads no holder at or below it; and whether no one else numbered between its last two numberings (`alone`), so the
 * next can be taken without reading the last. A guess that fails (another process numbered meanwhile) costs a failed
 * write, and none is made again until a numbering reads the last and finds it the one known held.
 */
interface Known {
  held: number;
  alone: boolean;
}
const knownSequences = new WeakMap<object, Map<string, Known>>();

function knownOf(store: object, kind: DocumentKind, prefix: string): Known {
  const sequences = knownSequences.get(store) ?? new Map<string, Known>();
  knownSequences.set(store, sequences);
  const key = `${kind}#${prefix}`;
  const known = sequences.get(key) ?? { held: 0, alone: false };
  sequences.set(key, known);
  return known;
}

export const heldAtLeast = (store: object, kind: DocumentKind, prefix: string): number =>
  knownOf(store, kind, prefix).held;

/** The number to take without reading the last while this process numbers alone; else undefined. */
export function guessNext(store: object, kind: DocumentKind, prefix: string): number | undefined {
  const known = knownOf(store, kind, prefix);
  return known.alone && known.held > 0 ? known.held + 1 : undefined;
}

/** A guess failed: another process numbers too. */
export function guessFailed(store: object, kind: DocumentKind, prefix: string): void {
  knownOf(store, kind, prefix).alone = false;
}

/** A numbering read the last number: alone again if it is the one known held. */
export function sawLast(store: object, kind: DocumentKind, prefix: string, last: number): void {
  const known = knownOf(store, kind, prefix);
  known.alone = last === known.held;
}

export function markHeld(
  store: object,
  document: Pick<BillingDocument, "kind" | "prefix" | "sequence">,
): void {
  const known = knownOf(store, document.kind, document.prefix);
  known.held = Math.max(known.held, document.sequence);
}
