/**
 * Maps items through `work` with at most `limit` calls in flight; results keep the input order. Workers share one
 * iterator, so each item is taken exactly once.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const pending = items.entries();
  const worker = async () => {
    for (const [index, item] of pending) results[index] = await work(item, index);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
