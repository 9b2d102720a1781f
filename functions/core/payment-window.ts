import type { Failure } from "./outcome";
import type { FirstPaymentRefusal } from "./signup-steps";

// What every payment window shares, a sign-up's (checkout.ts) or a new card's (payment-method.ts): how long its line
// waits for the customer, and how a refusal reads.

/**
 * How long a payment window's ledger line (a checkout's period 0, a new card's payment) is left to the customer
 * before the attempt sweep asks retrieve about it (the gateway documents no window lifetime). An abandoned window is
 * then voided; a sale that arrives later still completes the checkout.
 */
export const WINDOW_LEASE_MS = 24 * 60 * 60_000;

/** Nothing was charged when this is asked, so an outcome we never learned counts as the gateway being unavailable. */
export const asRefusal = (failure: Failure): FirstPaymentRefusal =>
  failure.kind === "unknown" ? { kind: "unavailable", reason: failure.reason } : failure;
