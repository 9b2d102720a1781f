import type { ChargeAttempt } from "../base/model";
import type { Failure } from "../base/outcome";
import type { BillingRepository, TokenStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { PaymentGateway, WindowOutcome, WindowPrepared } from "../ports/payment-gateway";
import type { FirstPaymentRefusal } from "./signup-steps";

// What every payment window shares, a sign-up's (checkout.ts) or a new card's (payment-method-window.ts): how long it
// is left to the customer, how a refusal reads, and what becomes of a sale that came too late.

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

/**
 * What a window's sale issued when nothing will use it (its window had expired, its subscription is canceled): the
 * token and the gateway-managed plan are deleted at the gateway — a plan left there would charge the customer again —
 * and the vault, if it kept the token, says so. Best effort: a deletion the gateway refuses is left as it is.
 */
export async function retireIssued(
  paid: Pick<Extract<WindowOutcome, { readonly kind: "paid" }>, "token_id" | "recurring_id">,
  deps: {
    readonly gateway: Pick<PaymentGateway, "deleteToken" | "deleteRecurring">;
    readonly repository: TokenStore;
    readonly clock: Clock;
  },
): Promise<void> {
  if (paid.recurring_id !== undefined) await deps.gateway.deleteRecurring(paid.recurring_id);
  if (paid.token_id === undefined) return;
  const deleted = await deps.gateway.deleteToken(paid.token_id);
  if (deleted.kind === "success")
    await deps.repository.updateToken(paid.token_id, {
      expect: { status: "active" },
      set: { status: "deleted", updated_at: deps.clock.now().toISOString() },
    });
}
