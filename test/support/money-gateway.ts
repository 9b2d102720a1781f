import { fromCents, toCents } from "../../functions/core/base/money";
import type { GatewayOutcome } from "../../functions/core/base/outcome";
import type {
  OrderLookup,
  PaymentGateway,
  RebillRequest,
  RebillResult,
} from "../../functions/core/ports/payment-gateway";
import type { GatewayPayment } from "../../local/audit/ledger-comparison";
import { RefundingGateway } from "./refunding-gateway";

interface Sale {
  readonly transaction_id: string;
  readonly amount: string;
  readonly currency: string;
}

/**
 * A gateway's money for core property tests: REBILL makes one sale per order_id (an order used again is refused, as
 * the gateway does), cancel and retrieve by refund_id come from RefundingGateway, retrieve by order_id finds the sale;
 * `fate` scripts what each money call meets (answered, committed but the answer lost, failed before committing,
 * declined). What it holds is the truth the ledger must equal.
 */
export class MoneyGateway extends RefundingGateway implements PaymentGateway {
  readonly sales = new Map<string, Sale>();

  async rebill(request: RebillRequest): Promise<GatewayOutcome<RebillResult>> {
    const fate = this.fate({ kind: "sale", id: request.order_id });
    if (fate === "failedBefore") return { kind: "unknown", reason: "HTTP 500 after sending" };
    if (fate === "declined") return { kind: "declined", code: "DC05", message: "do not honor" };
    if (this.sales.has(request.order_id))
      return { kind: "unknown", reason: "gateway EEEE: duplicated order" };
    const transaction_id = `TX${String(this.sales.size + 1).padStart(22, "0")}`;
    this.sales.set(request.order_id, { transaction_id, amount: request.amount, currency: request.currency });
    this.sale(transaction_id, request.amount);
    if (fate === "lost") return { kind: "unknown", reason: "timed out after sending" };
    return { kind: "success", value: { transaction_id } };
  }

  async findOrder({ order_id }: { order_id: string }): Promise<GatewayOutcome<OrderLookup>> {
    const sale = this.sales.get(order_id);
    return { kind: "success", value: sale ? { state: "paid", ...sale } : { state: "none" } };
  }

  async deleteToken(): Promise<GatewayOutcome<unknown>> {
    return { kind: "success", value: {} };
  }

  /** The sales as the ledger comparison reads them: what refunds left of each is its balance. */
  payments(): GatewayPayment[] {
    return [...this.sales].map(([orderId, sale]) => ({
      orderId,
      transactionId: sale.transaction_id,
      status: "SALE",
      amount: sale.amount,
      balance: fromCents(toCents(sale.amount) - this.refundedCents(sale.transaction_id), sale.currency),
    }));
  }

  /** The refunds made, as the money audit reads them. */
  refundRecords(): { refundId: string; orderId: string; amount: string }[] {
    const saleOf = new Map(
      [...this.sales].map(([orderId, sale]) => [sale.transaction_id, { orderId, sale }]),
    );
    return [...this.made].map(([refundId, refund]) => {
      const sold = saleOf.get(refund.transaction_id);
      return {
        refundId,
        orderId: sold?.orderId ?? "",
        amount: fromCents(refund.cents, sold?.sale.currency ?? "USD"),
      };
    });
  }

  payWithCard = unused;
  adjustRecurring = unused;
  deleteRecurring = unused;
  receiptUrl = unused;
  prepareWindow = unused;
  verifyWindowResult = unused;
  windowOrderOf = unused;
}

function unused(): never {
  throw new Error("not part of the money this gateway models");
}
