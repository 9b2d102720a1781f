import type { CardSummary } from "./card-summary";
import { fail, type LedgerCore, mapFor, ok, type StoreResult } from "./ledger-core";

export type RecurringStatus = "active" | "canceled";

export interface RecurringRecord {
  /** At most 20 characters. */
  readonly recurringId: string;
  readonly mid: string;
  /** The order that registered it. */
  readonly orderId: string;
  readonly currency: string;
  /** Charged each period; changed by adjust. */
  readonly amount: string;
  /** 1–10. */
  readonly intervalMonths: number;
  /** YYYYMMDD of the first charge; later charges are start + n × interval months (clamped). */
  readonly startDate: string;
  /** YYYYMMDD of the next charge. */
  readonly nextDate: string;
  readonly status: RecurringStatus;
  readonly notiUrl?: string;
  readonly card: CardSummary;
  /** Charges made so far. */
  readonly chargeCount: number;
  readonly createdAt: string;
  readonly canceledAt?: string;
}

export interface NewRecurring {
  readonly orderId: string;
  readonly currency: string;
  readonly amount: string;
  readonly intervalMonths: number;
  readonly startDate: string;
  readonly notiUrl?: string;
  readonly card: CardSummary;
}

export type RecurringError = "recurring_not_found" | "recurring_canceled";

type MutableRecurring = { -readonly [K in keyof RecurringRecord]: RecurringRecord[K] };

/** Gateway-managed recurring registrations per merchant. */
export class RecurringStore {
  readonly #core: LedgerCore;
  readonly #byMid = new Map<string, Map<string, MutableRecurring>>();
  #count = 0;

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  create(mid: string, input: NewRecurring, now: Date): RecurringRecord {
    const recurring: MutableRecurring = {
      recurringId: this.#core.nextId("recurring"),
      mid,
      orderId: input.orderId,
      currency: input.currency,
      amount: input.amount,
      intervalMonths: input.intervalMonths,
      startDate: input.startDate,
      nextDate: input.startDate,
      status: "active",
      notiUrl: input.notiUrl,
      card: input.card,
      chargeCount: 0,
      createdAt: this.#core.stamp(now),
      canceledAt: undefined,
    };
    mapFor(this.#byMid, mid).set(recurring.recurringId, recurring);
    this.#count++;
    this.#core.bump();
    return recurring;
  }

  find(mid: string, recurringId: string): RecurringRecord | undefined {
    return this.#byMid.get(mid)?.get(recurringId);
  }

  /** adjust: a new amount for the following charges. */
  adjust(mid: string, recurringId: string, amount: string): StoreResult<RecurringRecord, RecurringError> {
    return this.#change(mid, recurringId, (recurring) => {
      recurring.amount = amount;
    });
  }

  /** delete: no further charges; a second cancel is refused. */
  cancel(mid: string, recurringId: string, now: Date): StoreResult<RecurringRecord, RecurringError> {
    return this.#change(mid, recurringId, (recurring) => {
      recurring.status = "canceled";
      recurring.canceledAt = this.#core.stamp(now);
    });
  }

  /** A charge was made (whatever its outcome): count it and move to the next date. */
  recordCharge(
    mid: string,
    recurringId: string,
    nextDate: string,
  ): StoreResult<RecurringRecord, RecurringError> {
    return this.#change(mid, recurringId, (recurring) => {
      recurring.chargeCount++;
      recurring.nextDate = nextDate;
    });
  }

  /** Active registrations whose next date is on or before `date` (YYYYMMDD), every merchant. */
  *due(date: string): IterableIterator<RecurringRecord> {
    for (const recurring of this.all()) {
      if (recurring.status === "active" && recurring.nextDate <= date) yield recurring;
    }
  }

  *all(): IterableIterator<RecurringRecord> {
    for (const registrations of this.#byMid.values()) yield* registrations.values();
  }

  get size(): number {
    return this.#count;
  }

  #change(
    mid: string,
    recurringId: string,
    change: (recurring: MutableRecurring) => void,
  ): StoreResult<RecurringRecord, RecurringError> {
    const recurring = this.#byMid.get(mid)?.get(recurringId);
    if (!recurring) return fail("recurring_not_found");
    if (recurring.status === "canceled") return fail("recurring_canceled");
    change(recurring);
    this.#core.bump();
    return ok(recurring);
  }
}
