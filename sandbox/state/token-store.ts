import type { CardSummary } from "./card-summary";
import { fail, type LedgerCore, mapFor, ok, type StoreResult } from "./ledger-core";

/** deleted: the merchant deleted it (token deletion); it can never be charged again. */
export type TokenStatus = "active" | "expired" | "revoked" | "deleted";

export interface TokenRecord {
  readonly tokenId: string;
  readonly mid: string;
  /** Masked card, fingerprint and test behaviour; never the number. */
  readonly card: CardSummary;
  /** YYYYMM: the card's expiry, after which the token can be expired. */
  readonly cardExpiry: string;
  readonly status: TokenStatus;
  readonly createdAt: string;
  readonly statusChangedAt?: string;
}

export interface NewToken {
  readonly card: CardSummary;
  readonly cardExpiry: string;
  /** unique_token_id Y: refuse when this merchant already holds an active token for the card. */
  readonly unique: boolean;
}

type MutableToken = { -readonly [K in keyof TokenRecord]: TokenRecord[K] };

/** Card tokens per merchant, with a fingerprint index for unique_token_id. */
export class TokenStore {
  readonly #core: LedgerCore;
  readonly #tokens = new Map<string, MutableToken>();
  readonly #byFingerprint = new Map<string, Map<string, string[]>>();

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  create(mid: string, input: NewToken, now: Date): StoreResult<TokenRecord, "token_exists"> {
    const sameCard = mapFor(this.#byFingerprint, mid);
    const existing = sameCard.get(input.card.fingerprint) ?? [];
    if (input.unique && existing.some((tokenId) => this.#tokens.get(tokenId)?.status === "active")) {
      return fail("token_exists");
    }
    const token: MutableToken = {
      tokenId: this.#core.nextId("token"),
      mid,
      card: input.card,
      cardExpiry: input.cardExpiry,
      status: "active",
      createdAt: this.#core.stamp(now),
      statusChangedAt: undefined,
    };
    this.#tokens.set(token.tokenId, token);
    sameCard.set(input.card.fingerprint, [...existing, token.tokenId]);
    this.#core.bump();
    return ok(token);
  }

  /** The token if it belongs to this merchant. */
  find(mid: string, tokenId: string): TokenRecord | undefined {
    const token = this.#tokens.get(tokenId);
    return token?.mid === mid ? token : undefined;
  }

  /** This merchant's tokens of one card, oldest first. */
  findByFingerprint(mid: string, fingerprint: string): TokenRecord[] {
    const ids = this.#byFingerprint.get(mid)?.get(fingerprint) ?? [];
    return ids.flatMap((tokenId) => this.#tokens.get(tokenId) ?? []);
  }

  /**
   * Revokes, expires or deletes a token (or reactivates it, for tests); a no-op change does not bump the revision.
   * A deleted token stays deleted.
   */
  setStatus(
    mid: string,
    tokenId: string,
    status: TokenStatus,
    now: Date,
  ): StoreResult<TokenRecord, "token_not_found"> {
    const token = this.#tokens.get(tokenId);
    if (!token || token.mid !== mid) return fail("token_not_found");
    if (token.status === status || token.status === "deleted") return ok(token);
    token.status = status;
    token.statusChangedAt = this.#core.stamp(now);
    this.#core.bump();
    return ok(token);
  }

  all(): IterableIterator<TokenRecord> {
    return this.#tokens.values();
  }

  get size(): number {
    return this.#tokens.size;
  }
}
