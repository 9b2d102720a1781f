import type { LedgerCore } from "./ledger-core";

/**
 * How the sandbox is made to misreport a movement in its settlement lists (a control for tests and the demo, never
 * the gateway's own behaviour): fields of its record stated otherwise, or the record left out. The remittance's
 * header and count stay what was really paid out, as a bank statement would.
 */
export interface SettlementAlteration {
  /** Fields of the record as reported instead (request_amount, service_fee_amount, …). */
  readonly set: Readonly<Record<string, string>>;
  /** Left out of the list. */
  readonly omit: boolean;
}

/** Alterations by the transaction id of the movement they misreport. */
export class SettlementAlterations {
  readonly #core: LedgerCore;
  readonly #byTransaction = new Map<string, SettlementAlteration>();

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  alter(transactionId: string, alteration: SettlementAlteration): void {
    this.#byTransaction.set(transactionId, alteration);
    this.#core.bump();
  }

  of(transactionId: string): SettlementAlteration | undefined {
    return this.#byTransaction.get(transactionId);
  }

  all(): {
    readonly transaction_id: string;
    readonly set: Readonly<Record<string, string>>;
    readonly omit: boolean;
  }[] {
    return [...this.#byTransaction].map(([transaction_id, alteration]) => ({
      transaction_id,
      ...alteration,
    }));
  }
}
