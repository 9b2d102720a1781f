import { type ChargeAttempt, OPEN_ATTEMPT_STATUSES, type Subscription } from "../base/model";
import { attemptKeyOf } from "../base/order-id";
import { applyPaidInput } from "../machine/apply-input";
import type { LedgerStore } from "../ports/billing-repository";
import { type RefundDeps, refundCharge } from "./refunds";

/** What a proration line's state made of the plan change it pays for. */
export type ProrationSettlement =
  /** Paid: the pending plan is the plan (now, or by an earlier settlement). */
  | { readonly kind: "applied"; readonly subscription: Subscription }
  /** Its outcome is still being settled (the attempt sweep settles it, and this with it). */
  | { readonly kind: "pending"; readonly subscription: Subscription }
  /** It charged nothing: the change is dropped. */
  | { readonly kind: "charged_nothing" }
  /** Paid, but the subscription ended first: the change never applies and the proration goes back in full. */
  | { readonly kind: "refunded"; readonly reason: string };

/**
 * Settles the plan change a proration line pays for (README, Subscription lifecycle: adjust with charge_now), whoever
 * closed the line — the request that charged it, or the attempt sweep that found its outcome — and however often: a
 * paid line makes its pending plan the plan (applied again over any write that came between), a line that charged
 * nothing drops the pending change, and a paid line whose subscription was canceled first is refunded in full.
 */
export async function settleProration(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: RefundDeps,
): Promise<ProrationSettlement> {
  if (OPEN_ATTEMPT_STATUSES.includes(line.status)) return { kind: "pending", subscription };
  if (line.status !== "succeeded") {
    await applyPaidInput(
      subscription,
      () => ({ kind: "plan_change_abandoned", order_id: line.order_id }),
      deps,
    );
    return { kind: "charged_nothing" };
  }
  if (subscription.status === "canceled") {
    // Applied before the cancel: the proration paid for a change the customer had.
    if (subscription.pending_plan_order !== line.order_id) return { kind: "applied", subscription };
    const reason = "canceled before the plan change applied";
    await refundCharge({ charge: line, refund_id: `${line.order_id}-A`, reason }, deps);
    return { kind: "refunded", reason };
  }
  const applied = await applyPaidInput(
    subscription,
    () => ({ kind: "plan_change_paid", order_id: line.order_id }),
    deps,
  );
  if (applied.kind === "applied" || applied.kind === "unchanged")
    return { kind: "applied", subscription: applied.subscription };
  // Refused: applied by an earlier settlement of the same line (or canceled since: settled again, refunded).
  const current = await deps.repository.getSubscription(subscription.subscription_id);
  if (current?.status === "canceled") return settleProration(current, line, deps);
  return { kind: "applied", subscription: current ?? subscription };
}

/** The proration line paying for a subscription's pending plan change; undefined when none is pending. */
export async function pendingProrationLine(
  subscription: Subscription,
  repository: LedgerStore,
): Promise<ChargeAttempt | undefined> {
  const key = subscription.pending_plan_order && attemptKeyOf(subscription.pending_plan_order);
  return key ? repository.getAttempt(key) : undefined;
}
