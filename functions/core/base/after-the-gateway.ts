/**
 * The writes that follow a gateway call which may have moved money. If they fail (the table unavailable, a lost race
 * that throws), the line stays open under its lease and the attempt sweep settles it by retrieve: the caller is told
 * the outcome is being settled, never given an error (README, Exactly once: nothing answers 5xx once the gateway may
 * have acted), and the same request again finds its first try by its key.
 */
export async function orBeingSettled<T>(writes: () => Promise<T>, beingSettled: () => T): Promise<T> {
  try {
    return await writes();
  } catch {
    return beingSettled();
  }
}
