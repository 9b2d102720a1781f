import type { ChargeAttempt } from "./model";
import type { Failure } from "./outcome";
import type { BillingRepository, Clock, WindowPrepared } from "./ports";
import type { FirstPaymentRefusal } from "./signup-steps";

// What every payment window shares, a sign-up's (checkout.ts) or a new card's (payment-method-window.ts): how long it
// is left to the customer, and how a refusal reads.

/**
 * How long a payment window (a checkout, a new card's) is left to the customer unless the merchant asks otherwise
 * (`expires_in_minutes`; the gateway documents no window lifetime). Its ledger line is leased until then; at its end
 * the attempt sweep asks retrieve about the line — a sale is completed, none closes the window as expired — and a
 * payment that arrives after it is refunded.
 */
export const WINDOW_LIFE_MS = 24 * 60 * 60_000;

/** When a window opened at `now` expires: after `minutes`, as the merchant asked, else after WINDOW_LIFE_MS. */
export const windowExpiry = (now: Date, minutes: number | undefined): string =>
  new Date(now.getTime() + (minutes === undefined ? WINDOW_LIFE_MS : minutes * 60_000)).toISOString();

/** Nothing was charged when this is asked, so an outcome we never learned counts as the gateway being unavailable. */
export const asRefusal = (failure: Failure): FirstPaymentRefusal =>
  failure.kind === "unknown" ? { kind: "unavailable", reason: failure.reason } : failure;

/**
 * Keeps on the window's line how a page opens it (our hosted pages read it back) and until when (its lease as
 * claimed), while the line is still open as claimed: a result that closed it first leaves nothing to open.
 */
export async function keepWindowLaunch(
  line: ChargeAttempt,
  prepared: WindowPrepared,
  deps: { readonly repository: BillingRepository; readonly clock: Clock },
): Promise<void> {
  await deps.repository.updateAttempt(line, {
    expect: { status: line.status, lease_until: line.lease_until },
    set: {
      window: { fgkey: prepared.fgkey, ...prepared.launch, expires_at: line.lease_until },
      updated_at: deps.clock.now().toISOString(),
    },
  });
}
