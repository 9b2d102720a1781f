import type { GatewayOutcome } from "../../functions/core/base/outcome";
import type {
  ChargeGateway,
  RefundLookup,
  RefundRequest,
  RefundResult,
} from "../../functions/core/ports/payment-gateway";

/** What one money call meets: answered, committed but the answer lost, failed before committing, or declined. */
export type RefundFate = "ok" | "lost" | "failedBefore" | "declined";

/** A money call as the fate script sees it: a refund by its refund_id, a sale by its order_id. */
export interface MoneyCall {
  readonly kind: "refund" | "sale";
  readonly id: string;
}

interface MadeRefund {
  readonly transaction_id: string;
  readonly cents: number;
}

const cents = (amount: string) => Math.round(Number(amount) * 100);

/**
 * A gateway's cancel and retrieve by refund_id for core tests: each transaction's balance is its own (a refund beyond
 * it is refused), a refund_id is made at most once (the same one again answers the refund made), and `fate` scripts
 * what each call meets. `made` is the gateway's truth, what the ledger must equal.
 */
export class RefundingGateway implements Pick<ChargeGateway, "refund" | "findRefund"> {
  readonly made = new Map<string, MadeRefund>();
  readonly #balances = new Map<string, number>();
  fate: (call: MoneyCall) => RefundFate = () => "ok";
  calls = 0;

  /** A sale the gateway holds, refundable up to its amount. */
  sale(transactionId: string, amount: string): void {
    this.#balances.set(transactionId, cents(amount));
  }

  /** The refunded total of one transaction, in cents. */
  refundedCents(transactionId: string): number {
    return [...this.made.values()]
      .filter((refund) => refund.transaction_id === transactionId)
      .reduce((sum, refund) => sum + refund.cents, 0);
  }

  async refund(request: RefundRequest): Promise<GatewayOutcome<RefundResult>> {
    this.calls += 1;
    const fate = this.fate({ kind: "refund", id: request.refund_id });
    if (fate === "failedBefore") return { kind: "unknown", reason: "HTTP 500 after sending" };
    if (fate === "declined") return { kind: "declined", code: "RF01", message: "refund refused" };
    if (!this.made.has(request.refund_id)) {
      const balance = this.#balances.get(request.transaction_id) ?? 0;
      const amount = cents(request.amount);
      if (amount > balance) return { kind: "invalid", code: "EC00", message: "exceeds the balance" };
      this.#balances.set(request.transaction_id, balance - amount);
      this.made.set(request.refund_id, { transaction_id: request.transaction_id, cents: amount });
    }
    if (fate === "lost") return { kind: "unknown", reason: "timed out after sending" };
    return { kind: "success", value: { refund_transaction_id: `RT-${request.refund_id}` } };
  }

  async findRefund({ refund_id }: { refund_id: string }): Promise<GatewayOutcome<RefundLookup>> {
    return {
      kind: "success",
      value: this.made.has(refund_id)
        ? { found: true, refund_transaction_id: `RT-${refund_id}` }
        : { found: false },
    };
  }
}
