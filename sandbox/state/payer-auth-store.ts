import type { CardSummary } from "./card-summary";
import { fail, type LedgerCore, mapFor, ok, type StoreResult } from "./ledger-core";
import type { OtherParam } from "./payment-store";

/**
 * A payer authentication done by a PAYER_AUTH window: the card is authenticated for one order, and confirm (or a
 * non-ui payment naming its payer_auth_id) authorises it once.
 */
export interface PayerAuthRecord {
  /** 24 characters. */
  readonly payerAuthId: string;
  readonly mid: string;
  /** The PAYER_AUTH window's order, still prepared until confirm records its transaction. */
  readonly orderId: string;
  readonly currency: string;
  readonly amount: string;
  /** Masked card, fingerprint and behaviour; never the number. */
  readonly card: CardSummary;
  /** YYYYMM. */
  readonly cardExpiry: string;
  readonly email?: string;
  readonly otherParam?: OtherParam;
  readonly createdAt: string;
  /** The transaction that used it; a payer authentication is used once. */
  readonly usedBy?: string;
}

export type NewPayerAuth = Omit<PayerAuthRecord, "payerAuthId" | "mid" | "createdAt" | "usedBy">;

type MutablePayerAuth = { -readonly [K in keyof PayerAuthRecord]: PayerAuthRecord[K] };

export class PayerAuthStore {
  readonly #core: LedgerCore;
  readonly #byMid = new Map<string, Map<string, MutablePayerAuth>>();
  #count = 0;

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  create(mid: string, input: NewPayerAuth, now: Date): PayerAuthRecord {
    const record: MutablePayerAuth = {
      payerAuthId: this.#core.nextId("payerAuth"),
      mid,
      orderId: input.orderId,
      currency: input.currency,
      amount: input.amount,
      card: input.card,
      cardExpiry: input.cardExpiry,
      email: input.email,
      otherParam: input.otherParam,
      createdAt: this.#core.stamp(now),
      usedBy: undefined,
    };
    mapFor(this.#byMid, mid).set(record.payerAuthId, record);
    this.#count++;
    this.#core.bump();
    return record;
  }

  /** The record if it belongs to this merchant. */
  find(mid: string, payerAuthId: string): PayerAuthRecord | undefined {
    return this.#byMid.get(mid)?.get(payerAuthId);
  }

  markUsed(
    mid: string,
    payerAuthId: string,
    transactionId: string,
  ): StoreResult<PayerAuthRecord, "payer_auth_not_found" | "payer_auth_used"> {
    const record = this.#byMid.get(mid)?.get(payerAuthId);
    if (!record) return fail("payer_auth_not_found");
    if (record.usedBy !== undefined) return fail("payer_auth_used");
    record.usedBy = transactionId;
    this.#core.bump();
    return ok(record);
  }

  *all(): IterableIterator<PayerAuthRecord> {
    for (const records of this.#byMid.values()) yield* records.values();
  }

  get size(): number {
    return this.#count;
  }
}
