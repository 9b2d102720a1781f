import { orBeingSettled } from "../base/after-the-gateway";
import type { ChargePolicy } from "../base/charge-policy";
import { closedRefundEvent, createdCreditNoteEvent } from "../base/events";
import type { AttemptKey, ChargeAttempt, RefundRecord } from "../base/model";
import { fromCents, type InvalidInput, invalidAmount, toCents } from "../base/money";
import type { Declined, Invalid, Unavailable, Unknown } from "../base/outcome";
import { closedWith, closeWithDocument } from "../invoicing/document-close";
import { isInvoiced } from "../invoicing/document-drafts";
import { creditNoteFor } from "../invoicing/finalize";
import type { BillingRepository } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { ChargeGateway } from "../ports/payment-gateway";

// Refunds move money like charges do, so they follow the same protocol (README, Exactly once: refunds): the refund is
// claimed under its refund_id (derived from the intent: the request's key, the charge it gives back) before anything
// else; its amount is held on the charge's line with a compare-and-set before the gateway is called, so concurrent
// refunds never exceed the charge; only the one that held it sends it; an outcome we cannot read stays open and the
// attempt sweep settles it by retrieve on the refund_id, never by guessing.

export interface RefundDeps {
  readonly repository: BillingRepository;
  readonly gateway: Pick<ChargeGateway, "refund" | "findRefund">;
  readonly clock: Clock;
  /**
   * inflightWindowMs: how long a sent refund is left alone before retrieve decides it; invoicing: how its credit note
   * is numbered and headed.
   */
  readonly policy: Pick<ChargePolicy, "inflightWindowMs" | "invoicing">;
}

export interface RefundCommand {
  readonly charge: AttemptKey;
  /** Derived from the intent by the caller: repeating a command with the same refund_id never refunds twice. */
  readonly refund_id: string;
  /** Omitted: the whole remaining balance. */
  readonly amount?: string;
  /** A plan credit: the difference for a whole period whose unused part `amount` is. */
  readonly prorated_from?: string;
  readonly reason: string;
}

export type RefundOutcome =
  | { readonly kind: "refunded"; readonly refund: RefundRecord }
  /** The same refund_id was used before: its record as it stands. */
  | { readonly kind: "existing"; readonly refund: RefundRecord }
  /** Sent, but its outcome is unknown (or the gateway could not take it yet): the attempt sweep settles it. */
  | { readonly kind: "pending"; readonly refund: RefundRecord }
  | { readonly kind: "not_refundable"; readonly reason: string }
  | { readonly kind: "refused"; readonly refund: RefundRecord; readonly failure: Declined | Invalid }
  | InvalidInput;

const notRefundable = (reason: string): RefundOutcome => ({ kind: "not_refundable", reason });

/** What is left to refund of a charge: its amount less every refund held or made. */
export const balanceCents = (charge: ChargeAttempt) =>
  toCents(charge.amount) - toCents(charge.refunded_amount ?? "0");

/**
 * Full or partial refund of one successful charge through the gateway's cancel (F when it gives back the whole
 * charge, P otherwise).
 */
export async function refundCharge(command: RefundCommand, deps: RefundDeps): Promise<RefundOutcome> {
  const charge = await deps.repository.getAttempt(command.charge);
  if (charge?.status !== "succeeded" || charge.transaction_id === undefined)
    return notRefundable("no successful charge with that id");
  const invalid = command.amount && invalidAmount(command.amount, charge.currency);
  if (invalid) return invalid;
  const balance = balanceCents(charge);
  const cents = command.amount === undefined ? balance : toCents(command.amount);
  const short =
    cents <= 0
      ? "nothing left to refund"
      : cents > balance
        ? `amount exceeds the balance ${fromCents(balance, charge.currency)}`
        : undefined;
  if (short !== undefined) {
    // The same refund asked again finds a balance that already counts it: it answers what it came to.
    const existing = await deps.repository.getRefund(command.refund_id);
    return existing ? { kind: "existing", refund: existing } : notRefundable(short);
  }

  const at = deps.clock.now().toISOString();
  const record: RefundRecord = {
    refund_id: command.refund_id,
    subscription_id: charge.subscription_id,
    order_id: charge.order_id,
    period: charge.period,
    attempt: charge.attempt,
    amount: fromCents(cents, charge.currency),
    ...(command.amount === undefined ? { whole_balance: true as const } : {}),
    ...(command.prorated_from === undefined ? {} : { prorated_from: command.prorated_from }),
    currency: charge.currency,
    reason: command.reason,
    status: "pending",
    lease_until: leaseUntil(deps),
    created_at: at,
    updated_at: at,
  };
  const claim = await deps.repository.createRefund(record);
  if (!claim.created) return { kind: "existing", refund: claim.existing };
  return holdAndSend(record, deps);
}

/** Holds the refund's amount on its charge, then sends it; a refund whose amount the balance no longer has fails. */
async function holdAndSend(record: RefundRecord, deps: RefundDeps): Promise<RefundOutcome> {
  const hold = await holdOnCharge(record, deps);
  switch (hold.kind) {
    case "held":
      return sendRefund(hold.charge, hold.record, deps);
    case "taken":
      // Someone else holds it (the attempt sweep took over a refund left open): they send it.
      return { kind: "pending", refund: record };
    case "short": {
      const closing = { status: "failed", rescode: "BALANCE", resmsg: hold.reason } as const;
      await closeRefund(record, closing, deps);
      return notRefundable(hold.reason);
    }
  }
}

type Hold =
  /** `record`: the refund as held (a whole-balance refund's amount may have been corrected). */
  | { readonly kind: "held"; readonly charge: ChargeAttempt; readonly record: RefundRecord }
  /** The refund_id already has an entry on the charge: whoever wrote it sends it (or sent it). */
  | { readonly kind: "taken"; readonly charge: ChargeAttempt }
  | { readonly kind: "short"; readonly reason: string };

/** A refund's entry on its charge: held until the gateway refuses it, then "0". */
const RELEASED = "0";

/**
 * Adds the refund to the charge's refunds and its amount to refunded_amount, as a compare-and-set on the charge's
 * refund revision: repeated while concurrent refunds of the same charge move it, never past the balance.
 */
async function holdOnCharge(asked: RefundRecord, deps: RefundDeps): Promise<Hold> {
  let record = asked;
  for (;;) {
    const charge = await deps.repository.getAttempt(record);
    if (charge?.status !== "succeeded")
      return { kind: "short", reason: "the charge is no longer refundable" };
    if (charge.refunds?.[record.refund_id] !== undefined) return { kind: "taken", charge };
    const balance = balanceCents(charge);
    if (balance > 0 && balance < toCents(record.amount) && record.whole_balance) {
      const corrected = await correctAmount(record, balance, deps);
      if (corrected === undefined) return { kind: "taken", charge };
      record = corrected;
    }
    const cents = toCents(record.amount);
    if (cents > balance)
      return { kind: "short", reason: `amount exceeds the balance ${fromCents(balance, charge.currency)}` };
    const held = await changeRefunds(charge, record.refund_id, record.amount, cents, deps);
    if (held) return { kind: "held", charge: held, record };
  }
}

/**
 * A whole-balance refund whose charge was partly refunded since it was asked: it gives back what is left. Written to
 * the record (still unheld, so unsent) before it is held; undefined when the record moved on meanwhile.
 */
async function correctAmount(
  record: RefundRecord,
  balance: number,
  deps: RefundDeps,
): Promise<RefundRecord | undefined> {
  const set = { amount: fromCents(balance, record.currency), updated_at: deps.clock.now().toISOString() };
  const corrected = await deps.repository.updateRefund(record.refund_id, {
    expect: { status: record.status, lease_until: record.lease_until },
    set,
  });
  return corrected ? { ...record, ...set } : undefined;
}

/** Gives a refused refund's amount back to the balance (once: its entry becomes "0"). */
async function releaseOnCharge(record: RefundRecord, deps: RefundDeps): Promise<void> {
  for (;;) {
    const charge = await deps.repository.getAttempt(record);
    const held = charge?.refunds?.[record.refund_id];
    if (charge === undefined || held === undefined || held === RELEASED) return;
    if (await changeRefunds(charge, record.refund_id, RELEASED, -toCents(held), deps)) return;
  }
}

/**
 * One compare-and-set of a charge's refunds: the refund's entry, refunded_amount moved by `deltaCents`. The charge as
 * written, or undefined when another refund moved it first.
 */
async function changeRefunds(
  charge: ChargeAttempt,
  refundId: string,
  entry: string,
  deltaCents: number,
  deps: RefundDeps,
): Promise<ChargeAttempt | undefined> {
  const revision = charge.refund_revision ?? 0;
  const set = {
    refunds: { ...charge.refunds, [refundId]: entry },
    refunded_amount: fromCents(toCents(charge.refunded_amount ?? "0") + deltaCents, charge.currency),
    refund_revision: revision + 1,
    updated_at: deps.clock.now().toISOString(),
  };
  const changed = await deps.repository.updateAttempt(charge, {
    expect: { status: "succeeded", refund_revision: revision },
    set,
  });
  return changed ? { ...charge, ...set } : undefined;
}

function leaseUntil(deps: RefundDeps): string {
  return new Date(deps.clock.now().getTime() + deps.policy.inflightWindowMs).toISOString();
}

/**
 * The gateway's cancel of a refund held on `charge` (the line as it stands with the hold): F when it gives back the
 * whole charge, P otherwise, with the balance before it.
 */
async function sendRefund(
  charge: ChargeAttempt,
  record: RefundRecord,
  deps: RefundDeps,
): Promise<RefundOutcome> {
  const cents = toCents(record.amount);
  const before = balanceCents(charge) + cents;
  const outcome = await deps.gateway.refund({
    transaction_id: charge.transaction_id ?? "",
    order_id: charge.order_id,
    refund_id: record.refund_id,
    type: cents === toCents(charge.amount) ? "F" : "P",
    amount: record.amount,
    original_amount: charge.amount,
    balance: fromCents(before, charge.currency),
    currency: charge.currency,
    reason: record.reason,
  });
  return orBeingSettled(
    () => {
      switch (outcome.kind) {
        case "success":
          return settleSucceeded(record, outcome.value.refund_transaction_id, deps);
        case "declined":
        case "invalid":
          return settleRefused(record, outcome, deps);
        default:
          return leaveOpen(record, outcome, deps);
      }
    },
    (): RefundOutcome => ({ kind: "pending", refund: record }),
  );
}

/**
 * The gateway made the refund: its record closes, announcing it. The charge already counts it, so a close that lost
 * its race leaves the refund open for the sweep, never a second refund.
 */
async function settleSucceeded(
  record: RefundRecord,
  refundTransactionId: string | undefined,
  deps: RefundDeps,
): Promise<RefundOutcome> {
  const closing = { status: "succeeded" as const, refund_transaction_id: refundTransactionId };
  const closed = await closeRefund(record, closing, deps);
  return closed ? { kind: "refunded", refund: closed } : { kind: "pending", refund: record };
}

async function settleRefused(
  record: RefundRecord,
  failure: Declined | Invalid,
  deps: RefundDeps,
): Promise<RefundOutcome> {
  await releaseOnCharge(record, deps);
  const closing = { status: "failed" as const, rescode: failure.code, resmsg: failure.message };
  return { kind: "refused", refund: (await closeRefund(record, closing, deps)) ?? record, failure };
}

/**
 * No answer that says what happened (a timeout, a reset, a 5xx) or the gateway could not take it now: the refund
 * stays held and open as unknown, and the attempt sweep settles it by retrieve after the in-flight window.
 */
async function leaveOpen(
  record: RefundRecord,
  failure: Unknown | Unavailable,
  deps: RefundDeps,
): Promise<RefundOutcome> {
  const set = {
    status: "unknown" as const,
    lease_until: leaseUntil(deps),
    resmsg: failure.reason,
    updated_at: deps.clock.now().toISOString(),
  };
  const marked = await deps.repository.updateRefund(record.refund_id, {
    expect: { status: record.status, lease_until: record.lease_until },
    set,
  });
  return { kind: "pending", refund: marked ? { ...record, ...set } : record };
}

/**
 * Writes what became of an open refund, announcing refund.succeeded or refund.failed in the same write; a succeeded
 * refund of an invoiced charge closes recorded as its credit note (numbered first), announcing credit_note.created. The
 * record as closed, or undefined when it had moved on (another writer closed or took it).
 */
async function closeRefund(
  open: RefundRecord,
  closing: Pick<RefundRecord, "status"> & Partial<RefundRecord>,
  deps: RefundDeps,
): Promise<RefundRecord | undefined> {
  const subscription = await deps.repository.getSubscription(open.subscription_id);
  // Subscriptions are never deleted: its events are placed on it.
  if (subscription === undefined)
    throw new Error(`refund ${open.refund_id}: no subscription ${open.subscription_id}`);
  const paid = closing.status === "succeeded" ? await deps.repository.getAttempt(open) : undefined;
  const invoiced = paid !== undefined && isInvoiced(paid) ? paid : undefined;
  const closedAs = (record: RefundRecord) => closedWith(record, closing, deps.clock.now());
  return closeWithDocument(
    open,
    {
      kind: "credit_note",
      document:
        invoiced === undefined
          ? undefined
          : (record) => creditNoteFor(subscription, closedAs(record), invoiced, deps),
      async write(record, note) {
        const closed = closedAs(record);
        const recorded = note === undefined ? closed : { ...closed, credit_note_number: note.number };
        const written = await deps.repository.updateRefund(record.refund_id, {
          expect: {
            status: record.status,
            lease_until: record.lease_until,
            credit_note_number: note?.number,
          },
          set: { ...closing, credit_note_number: note?.number, updated_at: closed.updated_at },
          remove: ["lease_until"],
          events: [
            closedRefundEvent(recorded, subscription),
            ...(note === undefined ? [] : [createdCreditNoteEvent(note, subscription)]),
          ],
        });
        return written ? recorded : undefined;
      },
      read: (record) => deps.repository.getRefund(record.refund_id),
      numberOf: (record) => record.credit_note_number,
      holderOf: (record) => record.refund_id,
    },
    deps.repository,
  );
}

/** What the attempt sweep made of one open refund. */
export type RefundSettlement = "settled" | "deferred" | "moved_on";

/**
 * Settles a refund left open past its lease (README, Exactly once: refunds). Its hold on the charge tells what can have
 * happened: no entry, so it was never sent — held and sent now; held, so retrieve by refund_id decides — found, it
 * succeeded; none, it never reached the gateway and is sent again under the same refund_id; released, it failed.
 * The sweep first takes the record over (a compare-and-set on its lease), so two sweeps never settle one refund.
 */
export async function settleOpenRefund(open: RefundRecord, deps: RefundDeps): Promise<RefundSettlement> {
  const taken: RefundRecord = { ...open, lease_until: leaseUntil(deps) };
  const tookOver = await deps.repository.updateRefund(open.refund_id, {
    expect: { status: open.status, lease_until: open.lease_until },
    set: { lease_until: taken.lease_until, updated_at: deps.clock.now().toISOString() },
  });
  if (!tookOver) return "moved_on";
  const charge = await deps.repository.getAttempt(open);
  const entry = charge?.refunds?.[open.refund_id];
  if (charge === undefined || entry === undefined) return settledBy(await holdAndSend(taken, deps));
  if (entry === RELEASED) {
    await closeRefund(taken, { status: "failed", rescode: open.rescode ?? "REFUSED" }, deps);
    return "settled";
  }
  const found = await deps.gateway.findRefund({
    refund_id: open.refund_id,
    transaction_id: charge.transaction_id ?? "",
    order_id: charge.order_id,
    amount: charge.amount,
    currency: charge.currency,
  });
  if (found.kind !== "success") return "deferred";
  if (found.value.found)
    return settledBy(await settleSucceeded(taken, found.value.refund_transaction_id, deps));
  // No refund under that id: the call never reached the gateway. The hold stays ours, so it is sent again.
  return settledBy(await sendRefund(charge, taken, deps));
}

const settledBy = (outcome: RefundOutcome): RefundSettlement =>
  outcome.kind === "pending" ? "deferred" : "settled";

/** A card verification's charge goes back in full once paid (its refund_id follows from it: never refunded twice). */
export async function refundVerification(line: AttemptKey & { readonly order_id: string }, deps: RefundDeps) {
  return refundCharge({ charge: line, refund_id: `${line.order_id}-V`, reason: "card verification" }, deps);
}
