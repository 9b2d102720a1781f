import { closedRefundEvent } from "./events";
import type { AttemptKey, RefundRecord } from "./model";
import { fromCents, type InvalidInput, invalidAmount, toCents } from "./money";
import type { Failure } from "./outcome";
import type { BillingRepository, ChargeGateway, Clock } from "./ports";

export interface RefundDeps {
  readonly repository: BillingRepository;
  readonly gateway: Pick<ChargeGateway, "refund">;
  readonly clock: Clock;
}

export interface RefundCommand {
  readonly charge: AttemptKey;
  /** Unique, chosen by the caller: repeating a command with the same refund_id returns the first result. */
  readonly refund_id: string;
  /** Omitted: the whole remaining balance. */
  readonly amount?: string;
  readonly reason: string;
}

export type RefundOutcome =
  | { readonly kind: "refunded"; readonly refund: RefundRecord }
  /** The same refund_id was used before: its record as it stands. */
  | { readonly kind: "existing"; readonly refund: RefundRecord }
  | { readonly kind: "not_refundable"; readonly reason: string }
  | { readonly kind: "refused"; readonly refund: RefundRecord; readonly failure: Failure }
  | InvalidInput;

/**
 * Full or partial refund of one successful charge through the gateway's cancel (F when it empties the balance, P
 * otherwise). The balance never goes below zero: the charge's refunded amount is updated with a compare-and-set.
 */
export async function refundCharge(command: RefundCommand, deps: RefundDeps): Promise<RefundOutcome> {
  const charge = await deps.repository.getAttempt(command.charge);
  if (charge?.status !== "succeeded" || charge.transaction_id === undefined) {
    return { kind: "not_refundable", reason: "no successful charge with that id" };
  }
  const invalid = command.amount && invalidAmount(command.amount, charge.currency);
  if (invalid) return invalid;
  const refunded = charge.refunded_amount ?? "0";
  const balanceCents = toCents(charge.amount) - toCents(refunded);
  const amountCents = command.amount === undefined ? balanceCents : toCents(command.amount);
  if (amountCents <= 0) return { kind: "not_refundable", reason: "nothing left to refund" };
  if (amountCents > balanceCents)
    return { kind: "not_refundable", reason: `amount exceeds the balance ${fromCents(balanceCents)}` };

  const at = deps.clock.now().toISOString();
  const record: RefundRecord = {
    refund_id: command.refund_id,
    subscription_id: charge.subscription_id,
    order_id: charge.order_id,
    period: charge.period,
    attempt: charge.attempt,
    amount: fromCents(amountCents),
    currency: charge.currency,
    reason: command.reason,
    status: "pending",
    created_at: at,
    updated_at: at,
  };
  const claim = await deps.repository.createRefund(record);
  if (!claim.created) return { kind: "existing", refund: claim.existing };

  const outcome = await deps.gateway.refund({
    transaction_id: charge.transaction_id,
    order_id: charge.order_id,
    refund_id: command.refund_id,
    type: amountCents === toCents(charge.amount) ? "F" : "P",
    amount: record.amount,
    original_amount: charge.amount,
    balance: fromCents(balanceCents),
    currency: charge.currency,
    reason: command.reason,
  });
  if (outcome.kind !== "success") {
    // unknown: the refund may exist at the gateway; it stays "unknown" for support to check by refund_id, and
    // announces nothing until then.
    const status = outcome.kind === "unknown" ? "unknown" : "failed";
    const refused = outcome.kind === "declined" || outcome.kind === "invalid";
    const closing = {
      status,
      resmsg: refused ? outcome.message : outcome.reason,
      ...(refused ? { rescode: outcome.code } : {}),
      updated_at: at,
    } as const;
    await closeRefund(record, closing, status === "failed", deps);
    return { kind: "refused", refund: { ...record, ...closing }, failure: outcome };
  }
  await addRefunded(command.charge, amountCents, at, deps);
  const done = {
    status: "succeeded" as const,
    refund_transaction_id: outcome.value.refund_transaction_id,
    updated_at: at,
  };
  await closeRefund(record, done, true, deps);
  return { kind: "refunded", refund: { ...record, ...done } };
}

/** Writes what became of a pending refund, announcing it (refund.succeeded / refund.failed) when `announce`. */
async function closeRefund(
  pending: RefundRecord,
  closing: Pick<RefundRecord, "status" | "updated_at"> & Partial<RefundRecord>,
  announce: boolean,
  deps: RefundDeps,
): Promise<void> {
  const subscription = announce ? await deps.repository.getSubscription(pending.subscription_id) : undefined;
  await deps.repository.updateRefund(pending.refund_id, {
    expect: { status: "pending" },
    set: closing,
    events: announce ? [closedRefundEvent({ ...pending, ...closing }, subscription)] : undefined,
  });
}

/**
 * Adds a refund the gateway accepted to the charge's refunded amount. Compare-and-set in a loop: a concurrent refund
 * of the same charge may have moved it since we read it, and an accepted refund must always be counted.
 */
async function addRefunded(key: AttemptKey, cents: number, at: string, deps: RefundDeps): Promise<void> {
  for (let tries = 0; tries < 10; tries += 1) {
    const charge = await deps.repository.getAttempt(key);
    if (!charge) break;
    const refunded = charge.refunded_amount ?? "0";
    const counted = await deps.repository.updateAttempt(key, {
      expect: { status: "succeeded", refunded_amount: refunded },
      set: { refunded_amount: fromCents(toCents(refunded) + cents), updated_at: at },
    });
    if (counted) return;
  }
  throw new Error(
    `could not record a refund of ${fromCents(cents)} on ${key.subscription_id}/${key.period}/${key.attempt}`,
  );
}

/** A card verification's charge goes back in full once paid (its refund_id follows from it: never refunded twice). */
export async function refundVerification(line: AttemptKey & { readonly order_id: string }, deps: RefundDeps) {
  return refundCharge({ charge: line, refund_id: `${line.order_id}-V`, reason: "card verification" }, deps);
}
