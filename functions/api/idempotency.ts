import { createHash } from "node:crypto";
import * as z from "zod";
import type { IdempotencyStore } from "../core/ports/idempotency-store";
import { headerOf } from "../lambda/http-event";
import { lazySchema } from "../shared/lazy-schema";
import {
  ApiError,
  type ApiResponse,
  idempotencyKeyReused,
  parseInput,
  requestInProgress,
  toErrorResponse,
} from "./errors";
import type { HttpRequest } from "./http";
import { IDEMPOTENCY_KEY_HEADER, idempotencyKey } from "./merchant-api-schemas";

// Idempotency-Key on the merchant API's POSTs (README, Merchant API): the same key and request answer the first
// response without a second effect; the same key with another request is a 409; a duplicate sent while the first is
// still running is a 409 to repeat later. The store (core/ports/idempotency-store.ts) keeps the response under a
// digest of the key, with a digest of the request to compare.

export interface IdempotencyDeps {
  readonly idempotency: IdempotencyStore;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** JSON with object keys sorted at every depth, so that the same request always has the same digest. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** The digest of a request: its route, path parameters and `body` (as parsed, card data already masked). */
export function fingerprintOf(request: HttpRequest, body: unknown): string {
  return sha256(canonicalJson({ route: request.routeKey, path: request.pathParameters ?? {}, body }));
}

/** What the core keeps of a key on what the request made (an ad hoc charge line): a digest, never the key. */
export function requestKeyOf(key: string): string {
  return sha256(`idempotency-key:${key}`);
}

const idempotencyHeader = lazySchema(() => z.object({ [IDEMPOTENCY_KEY_HEADER]: idempotencyKey.optional() }));

/**
 * A 202: the request was taken but its outcome is still being settled. It is not kept, so the same request again runs
 * again and answers what it has come to — safe, because everything that answers 202 finds its first try by the key
 * (a sign-up's subscription id, a charge's line, a refund's refund_id all follow from it).
 */
class Unsettled extends Error {
  constructor(readonly response: ApiResponse) {
    super("unsettled");
  }
}

/**
 * Answers that settle the request (2xx but 202, 4xx) are kept; a 202 or a 5xx is thrown on, so that nothing is kept
 * and a retry with the key answers what the first try came to.
 */
async function settled(handle: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let response: ApiResponse;
  try {
    response = await handle();
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return toErrorResponse(error);
    throw error;
  }
  if (response.status === 202) throw new Unsettled(response);
  return response;
}

/**
 * A POST that honours Idempotency-Key. `body` identifies the request besides its route and path: the parsed body,
 * with any card data already reduced to the masked card. `handle` gets the key's digest (undefined without a key).
 */
export async function idempotentPost(
  request: HttpRequest,
  services: IdempotencyDeps,
  body: unknown,
  handle: (requestKey: string | undefined) => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const header = { [IDEMPOTENCY_KEY_HEADER]: headerOf(request, IDEMPOTENCY_KEY_HEADER) };
  const key = parseInput(idempotencyHeader, header)[IDEMPOTENCY_KEY_HEADER];
  if (key === undefined) return handle(undefined);
  const outcome = await services.idempotency
    .run({ key, fingerprint: fingerprintOf(request, body) }, () => settled(() => handle(requestKeyOf(key))))
    .catch((error: unknown) => {
      if (error instanceof Unsettled)
        return { kind: "completed", response: error.response, replayed: false } as const;
      throw error;
    });
  switch (outcome.kind) {
    case "completed": {
      const { response, replayed } = outcome;
      return replayed
        ? { ...response, headers: { ...response.headers, "idempotent-replayed": "true" } }
        : response;
    }
    case "mismatch":
      throw idempotencyKeyReused();
    case "in_progress":
      throw requestInProgress();
  }
}
