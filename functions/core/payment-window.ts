import type { ChargeAttempt } from "./model";
import type { Failure } from "./outcome";
import type { BillingRepository, Clock, WindowPrepared } from "./ports";
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

/**
 * Keeps on the window's line how a page opens it (our hosted pages read it back), while the line is still open as
 * claimed: a result that closed it first leaves nothing to open.
 */
export async function keepWindowLaunch(
  line: ChargeAttempt,
  prepared: WindowPrepared,
  deps: { readonly repository: BillingRepository; readonly clock: Clock },
): Promise<void> {
  await deps.repository.updateAttempt(line, {
    expect: { status: line.status, lease_until: line.lease_until },
    set: {
      window: { fgkey: prepared.fgkey, ...prepared.launch },
      updated_at: deps.clock.now().toISOString(),
    },
  });
}
