/**
 * Where rendered documents (an invoice's or a credit note's PDF) are kept: each file under a key of its own, written
 * once — a document never changes, so a file written twice holds the same — and read by a short-lived link.
 */
export interface DocumentFiles {
  /** Whether a file is stored under `key`. */
  has(key: string): Promise<boolean>;
  store(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** A link that downloads the file under `key` as `fileName` for a few minutes (signed here: no request). */
  link(key: string, fileName: string): Promise<string>;
}
