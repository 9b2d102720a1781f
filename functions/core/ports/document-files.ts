/**
 * Where rendered documents (an invoice's or a credit note's PDF) are kept: each file under a key of its own, written
 * once — a document never changes, so a file written twice holds the same — and read by a short-lived link.
 */
export interface DocumentFiles {
  /** A link that downloads the file under `key` for a few minutes; undefined when none is stored. */
  linkTo(key: string, fileName: string): Promise<string | undefined>;
  store(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
}
