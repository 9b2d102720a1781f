/** What became of one unit of work: done (acknowledge) or retry after a delay (leave it on the queue). */
export type WorkResult =
  | { readonly kind: "done"; readonly note: string }
  | { readonly kind: "retry"; readonly delaySeconds: number; readonly note: string };

export const done = (note: string): WorkResult => ({ kind: "done", note });
export const retry = (delaySeconds: number, note: string): WorkResult => ({
  kind: "retry",
  delaySeconds: Math.max(1, Math.ceil(delaySeconds)),
  note,
});
