import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";

// The idempotency store (README, Merchant API: Idempotency-Key): a request's first answer kept under a digest of its
// key, with a digest of the request to compare, answered again to the same key and request.

export interface IdempotentRequest {
  /** The Idempotency-Key as sent (the store keeps only its digest). */
  readonly key: string;
  /** A digest of what is asked: route, path parameters and body, card data left out. */
  readonly fingerprint: string;
}

/** An answer as the store keeps it: a view, never card data. */
export const storedResponseSchema = lazySchema(() =>
  z.object({
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
  }),
);
export type StoredResponse = z.infer<typeof storedResponseSchema>;

export type IdempotencyOutcome =
  | { readonly kind: "completed"; readonly response: StoredResponse; readonly replayed: boolean }
  /** The key was used with another request. */
  | { readonly kind: "mismatch" }
  /** The key's first request is still running. */
  | { readonly kind: "in_progress" };

export interface IdempotencyStore {
  /**
   * Runs `work` once per key and keeps its response, answered again to the same key and request. When `work`
   * throws, nothing is kept and the key is free again.
   */
  run(request: IdempotentRequest, work: () => Promise<StoredResponse>): Promise<IdempotencyOutcome>;
}
