import type { ChargePolicy } from "../base/charge-policy";
import type { BillingEvent } from "../base/events";
import type { AttemptKey, ChargeAttempt } from "../base/model";
import { orderIdFor } from "../base/order-id";
import type { Declined, Failure, Invalid } from "../base/outcome";
import type { PeriodCharge } from "../base/plan-price";
import type { Closing } from "../invoicing/line-close";
import type { LedgerStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";

// A ledger line's own writes: opened pending for the in-flight window, recorded unknown, voided or closed, each a
// conditional write on the line as read. The charge engine, ad hoc charges and new cards' payments share them.

/** What a line's writes need: the ledger, the clock and the in-flight window. */
export interface LineDeps {
  readonly repository: LedgerStore;
  readonly clock: Clock;
  readonly policy: ChargePolicy;
}

export function leaseUntil(deps: Pick<LineDeps, "clock" | "policy">): string {
  return new Date(deps.clock.now().getTime() + deps.policy.inflightWindowMs).toISOString();
}

/** A new ledger line, pending for the in-flight window: what a claim writes before the gateway is called. */
export function pendingAttempt(
  key: AttemptKey,
  charge: PeriodCharge,
  deps: Pick<LineDeps, "clock" | "policy">,
): ChargeAttempt {
  const now = deps.clock.now().toISOString();
  return {
    ...key,
    order_id: orderIdFor(key),
    ...charge,
    status: "pending",
    lease_until: leaseUntil(deps),
    created_at: now,
    updated_at: now,
  };
}

/**
 * The charge may exist: never send it again. The attempt waits as unknown until retrieve decides it, once the
 * in-flight window has passed (the attempt sweep). False when the attempt changed meanwhile.
 */
export function recordUnknownOutcome(
  attempt: ChargeAttempt,
  reason: string,
  deps: LineDeps,
): Promise<boolean> {
  return deps.repository.updateAttempt(attempt, {
    expect: { status: attempt.status, lease_until: attempt.lease_until },
    set: {
      status: "unknown",
      lease_until: leaseUntil(deps),
      resmsg: reason,
      updated_at: deps.clock.now().toISOString(),
    },
  });
}

/**
 * Closes an open attempt as voided (announcing `events` in the same write): no transaction exists for it. False when
 * it changed meanwhile.
 */
export function voidAttempt(
  attempt: ChargeAttempt,
  reason: string,
  deps: Pick<LineDeps, "repository" | "clock">,
  events?: readonly BillingEvent[],
): Promise<boolean> {
  return deps.repository.updateAttempt(attempt, {
    expect: { status: attempt.status, lease_until: attempt.lease_until },
    set: { status: "voided", resmsg: reason, updated_at: deps.clock.now().toISOString() },
    remove: ["lease_until"],
    events,
  });
}

/** The final state of an attempt the gateway refused: declined, or failed (our request was invalid). */
export function refusalClosing(failure: Declined | Invalid): Closing {
  return failure.kind === "declined"
    ? {
        status: "declined",
        rescode: failure.code,
        resmsg: failure.message,
        errcode: failure.errcode,
        dead_end: failure.deadEnd,
        decline_reason: failure.reason,
      }
    : { status: "failed", rescode: failure.code, resmsg: failure.message };
}

/** What a closed line that charged nothing tells its caller: the refusal it was closed with; undefined otherwise. */
export function refusalOfLine(line: ChargeAttempt): Failure | undefined {
  switch (line.status) {
    case "voided":
      return { kind: "unavailable", reason: line.resmsg ?? "nothing was charged" };
    case "declined":
      return {
        kind: "declined",
        code: line.rescode ?? "DECLINED",
        message: line.resmsg ?? "",
        errcode: line.errcode,
        deadEnd: line.dead_end,
        reason: line.decline_reason,
      };
    case "failed":
      return { kind: "invalid", code: line.rescode ?? "REQUEST", message: line.resmsg ?? "" };
    default:
      return undefined;
  }
}
