import { classifyRescode, type Failure } from "./outcome";
import type { WindowResult } from "./ports";
import type { FirstPaymentRefusal } from "./signup-steps";

// What every payment window shares, a sign-up's (checkout.ts) or a new card's (payment-method.ts): how long its line
// waits for the customer, and how its result reads.

/**
 * How long a payment window's ledger line (a checkout's period 0, a new card's payment) is left to the customer
 * before the attempt sweep asks retrieve about it (the gateway documents no window lifetime). An abandoned window is
 * then voided; a sale that arrives later still completes the checkout.
 */
export const WINDOW_LEASE_MS = 24 * 60 * 60_000;

/** Nothing was charged when this is asked, so an outcome we never learned counts as the gateway being unavailable. */
export const asRefusal = (failure: Failure): FirstPaymentRefusal =>
  failure.kind === "unknown" ? { kind: "unavailable", reason: failure.reason } : failure;

/** The refusal a window result reports (a window result never leaves the outcome open). */
export function windowRefusal(result: WindowResult): FirstPaymentRefusal {
  return asRefusal(classifyRescode(result.rescode, result.resmsg, "read", result.errcode));
}

/**
 * What an approved window result says happened. The seed sends a status; the real gateway sends none, and its
 * approved PAYMENT window is a sale — unless it issued a virtual account, whose money comes with the deposit: that
 * one waits (retrieve settles it once paid). Any other type without a status (a PAYER_AUTH result) is not a sale.
 */
export function windowOutcome(result: WindowResult): string | undefined {
  if (result.status !== undefined) return result.status;
  if (result.transaction_type !== "PAYMENT") return undefined;
  return result.virtual_account_number ? "REGISTERED" : "SALE";
}
