import { LedgerCore } from "./ledger-core";
import { PartnerStore } from "./partner-store";
import { PayerAuthStore } from "./payer-auth-store";
import { PaymentStore } from "./payment-store";
import { RecurringStore } from "./recurring-store";
import { SettlementAlterations } from "./settlement-alterations";
import { TokenStore } from "./token-store";
import { WebhookStore } from "./webhook-store";
import { WindowStore } from "./window-store";

export interface LedgerCounts {
  readonly orders: number;
  readonly payments: number;
  readonly refunds: number;
  readonly tokens: number;
  readonly recurring: number;
  readonly windows: number;
  readonly webhookRegistrations: number;
  readonly partnerSubscriptions: number;
  readonly partnerTokens: number;
}

/** Kinds of record `records(kind)` lists (GET /sandbox/ledger?kind=…). */
export const RECORD_KINDS = [
  "orders",
  "payments",
  "refunds",
  "tokens",
  "recurring",
  "windows",
  "webhooks",
  "subscriptions",
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface LedgerOptions {
  /** Zone of the YYYYMMDD… stamps, minutes east of UTC; default 0 (UTC). */
  readonly utcOffsetMinutes?: number;
}

/**
 * The sandbox gateway's whole state, in memory: one store per resource, sharing one revision counter (bumped by
 * every mutation) and the id counters. Records are plain objects with short fields, indexed by nested maps.
 */
export class Ledger {
  readonly #core: LedgerCore;
  readonly payments: PaymentStore;
  readonly tokens: TokenStore;
  readonly recurring: RecurringStore;
  readonly webhooks: WebhookStore;
  readonly partner: PartnerStore;
  readonly windows: WindowStore;
  readonly payerAuths: PayerAuthStore;
  readonly settlementAlterations: SettlementAlterations;

  constructor(options: LedgerOptions = {}) {
    this.#core = new LedgerCore(options.utcOffsetMinutes);
    this.payments = new PaymentStore(this.#core);
    this.tokens = new TokenStore(this.#core);
    this.recurring = new RecurringStore(this.#core);
    this.webhooks = new WebhookStore(this.#core);
    this.partner = new PartnerStore(this.#core);
    this.windows = new WindowStore(this.#core);
    this.payerAuths = new PayerAuthStore(this.#core);
    this.settlementAlterations = new SettlementAlterations(this.#core);
  }

  /** Zone of the stamps, minutes east of UTC (a YYYYMMDD date starts at its midnight there). */
  get utcOffsetMinutes(): number {
    return this.#core.utcOffsetMinutes;
  }

  /** Bumped by every mutation of any store. */
  get revision(): number {
    return this.#core.revision;
  }

  /** YYYYMMDDHHMMSS of `date` in the gateway's zone. */
  stamp(date: Date): string {
    return this.#core.stamp(date);
  }

  /** YYYYMMDD of `date` in the gateway's zone. */
  date(date: Date): string {
    return this.#core.date(date);
  }

  counts(): LedgerCounts {
    return {
      ...this.payments.counts(),
      tokens: this.tokens.size,
      recurring: this.recurring.size,
      windows: this.windows.size,
      webhookRegistrations: this.webhooks.size,
      partnerSubscriptions: this.partner.counts.subscriptions,
      partnerTokens: this.partner.counts.tokens,
    };
  }

  /** Every record of a kind, optionally of one merchant, for inspection. */
  *records(kind: RecordKind, mid?: string): IterableIterator<object> {
    for (const record of this.#all(kind)) {
      if (mid === undefined || record.mid === mid) yield record;
    }
  }

  #all(kind: RecordKind): Iterable<{ readonly mid: string }> {
    switch (kind) {
      case "orders":
        return this.payments.orders();
      case "payments":
        return this.payments.payments();
      case "refunds":
        return this.payments.refunds();
      case "tokens":
        return this.tokens.all();
      case "recurring":
        return this.recurring.all();
      case "windows":
        return this.windows.all();
      case "webhooks":
        return [...this.webhooks.all()].map(([mid, registration]) => ({ mid, ...registration }));
      case "subscriptions":
        return this.partner.allSubscriptions();
    }
  }
}
