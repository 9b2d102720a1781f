import { type ChargeAttempt, hasExpired } from "../../core/base/model";
import { refusalReasonOf } from "../shared/page-text";
import type { PortalEntry } from "./portal-page";

// A new card's window as the portal sees it, from the subscriptions' ledger lines alone: the one that still waits for
// the customer (its page), and what its payment came to once the customer is back (the portal's notice).

/** The new card's window of a subscription that still waits for the customer at `now`, if one does. */
export function openCardWindow(charges: readonly ChargeAttempt[], now: Date) {
  return charges.find(
    (line): line is ChargeAttempt & Required<Pick<ChargeAttempt, "window">> =>
      line.purpose === "payment_method" &&
      line.window !== undefined &&
      !hasExpired(line.window.expires_at, now) &&
      (line.status === "pending" || line.status === "retry"),
  );
}

/**
 * Back from the card window: what its latest payment came to — checking while it is open, and while its subscription
 * has not yet taken the card it paid with (the line closes first, the subscription changes in the next write).
 */
export function cardOutcome(entries: readonly PortalEntry[]) {
  const [latest] = entries
    .flatMap(({ subscription, charges }) =>
      charges.filter((line) => line.purpose === "payment_method").map((line) => ({ line, subscription })),
    )
    .sort((a, b) => b.line.created_at.localeCompare(a.line.created_at));
  if (latest === undefined) return {};
  const { line, subscription } = latest;
  const checking = { notice: "card_checking" as const, waiting: true };
  if (["pending", "retry", "unknown"].includes(line.status)) return checking;
  if (line.status !== "succeeded") return { refusal: refusalReasonOf(line) };
  // A subscription canceled meanwhile never takes it: the page shows it canceled.
  if (subscription.status === "canceled") return {};
  const taken =
    (line.token_id !== undefined && subscription.token_id === line.token_id) ||
    (line.recurring_id !== undefined && subscription.recurring_id === line.recurring_id);
  return taken ? { notice: "card_updated" as const } : checking;
}
