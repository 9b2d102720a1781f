import type { AttemptKey } from "../base/model";
import type { Failure } from "../base/outcome";
import type { LedgerStore, SubscriptionStore } from "../ports/billing-repository";
import type { PaymentGateway } from "../ports/payment-gateway";

export interface ReceiptDeps {
  readonly repository: SubscriptionStore & LedgerStore;
  readonly gateway: Pick<PaymentGateway, "receiptUrl">;
}

export type ReceiptResult =
  | { readonly kind: "receipt"; readonly receipt_url: string }
  | { readonly kind: "not_found" }
  /** The charge moved no money: no transaction has a receipt. */
  | { readonly kind: "no_receipt"; readonly status: string }
  | { readonly kind: "refused"; readonly failure: Failure };

/** The gateway's receipt page of a succeeded charge, asked with the customer's e-mail (the gateway's proof). */
export async function receiptOf(key: AttemptKey, deps: ReceiptDeps): Promise<ReceiptResult> {
  const [charge, subscription] = await Promise.all([
    deps.repository.getAttempt(key),
    deps.repository.getSubscription(key.subscription_id),
  ]);
  if (!charge || !subscription) return { kind: "not_found" };
  if (charge.status !== "succeeded" || charge.transaction_id === undefined)
    return { kind: "no_receipt", status: charge.status };
  const outcome = await deps.gateway.receiptUrl(charge.transaction_id, subscription.customer.email);
  return outcome.kind === "success"
    ? { kind: "receipt", receipt_url: outcome.value.receipt_url }
    : { kind: "refused", failure: outcome };
}
