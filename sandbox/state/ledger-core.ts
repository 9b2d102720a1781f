/** What every ledger store shares: the revision counter, the id counters and the gateway's time formats. */

/** A store operation either succeeds or names a business reason the endpoint maps to a rescode. */
export type StoreResult<T, E extends string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });
export const fail = <E extends string>(error: E): { readonly ok: false; readonly error: E } => ({
  ok: false,
  error,
});

/** Identifier families; each has its own counter. */
const ID_FORMATS = {
  /** transaction_id: exactly 24 characters, after the merchant's mid as the real gateway's (`<mid>W<digits>`). */
  transaction: { prefix: "W", length: 24 },
  /** refund_transaction_id: also a transaction id, 24 characters. */
  refundTransaction: { prefix: "SBXR", length: 24 },
  /** recurring_id: at most 20 characters. */
  recurring: { prefix: "SBXRC", length: 20 },
  token: { prefix: "SBXTK", length: 24 },
  /** payer_auth_id of a PAYER_AUTH window: 24 characters, like a transaction id. */
  payerAuth: { prefix: "SBXPA", length: 24 },
  subscription: { prefix: "sbxsub_", length: 20 },
  /** Chargeback transaction id in reconciliation records: 24 characters. */
  chargeback: { prefix: "SBXC", length: 24 },
} as const;
export type IdKind = keyof typeof ID_FORMATS;

const pad2 = (value: number) => String(value).padStart(2, "0");

/**
 * Memory note: records are built as explicit object literals (a spread makes V8 fall back to a dictionary-mode
 * object, 4× larger) and generated strings are joined flat (a template literal leaves a rope, 3× larger).
 */
export class LedgerCore {
  #revision = 0;
  readonly #counters = new Map<IdKind, number>();
  // The clock is frozen between moves, so consecutive records share one stamp string.
  #lastStamp: { readonly time: number; readonly text: string } = { time: Number.NaN, text: "" };

  /** @param utcOffsetMinutes the zone of the gateway's YYYYMMDD… stamps (0 = UTC). */
  constructor(readonly utcOffsetMinutes = 0) {}

  /** Bumped by every mutation: an unchanged revision proves an unchanged ledger. */
  get revision(): number {
    return this.#revision;
  }

  bump(): void {
    this.#revision++;
  }

  /** Deterministic ids: the owner's id (a transaction's mid), the family's prefix and a zero-padded counter. */
  nextId(kind: IdKind, owner = ""): string {
    const { length } = ID_FORMATS[kind];
    const prefix = owner + ID_FORMATS[kind].prefix;
    const next = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, next);
    return [prefix, String(next).padStart(length - prefix.length, "0")].join("");
  }

  /** YYYYMMDDHHMMSS in the gateway's zone. */
  stamp(date: Date): string {
    const time = Math.floor(date.getTime() / 1000);
    if (time !== this.#lastStamp.time) {
      const local = this.#local(date);
      const text = [
        this.date(date),
        pad2(local.getUTCHours()),
        pad2(local.getUTCMinutes()),
        pad2(local.getUTCSeconds()),
      ];
      this.#lastStamp = { time, text: text.join("") };
    }
    return this.#lastStamp.text;
  }

  /** YYYYMMDD in the gateway's zone. */
  date(date: Date): string {
    const local = this.#local(date);
    return [local.getUTCFullYear(), pad2(local.getUTCMonth() + 1), pad2(local.getUTCDate())].join("");
  }

  #local(date: Date): Date {
    return new Date(date.getTime() + this.utcOffsetMinutes * 60_000);
  }
}

/** Nested map get-or-create: per-merchant indexes without composite string keys (less memory per record). */
export function mapFor<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}
