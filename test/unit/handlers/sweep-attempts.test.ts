import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChargeAttempt } from "../../../functions/core/base/model";
import { run as sweepAttempts } from "../../../functions/handlers/sweep-attempts";
import { metrics } from "../../../functions/lambda/observability";
import { scheduledEvent } from "../../../local/lambda/lambda-context";
import { dueSubscription, fakeChargeServices, START } from "../../support/fake-billing";
import { spyOnMetrics } from "../../support/metric-spy";

const NO_REFUNDS = { examined: 0, settled: 0, deferred: 0 };
const NO_CHECKOUTS = { examined: 0, expired: 0, deferred: 0 };

let recorded: ReturnType<typeof spyOnMetrics>;
beforeEach(() => {
  recorded = spyOnMetrics();
});
afterEach(() => metrics.clearMetrics());

const HOUR = 3_600_000;

function openAttempt(subscriptionId: string, status: ChargeAttempt["status"]): ChargeAttempt {
  const created = new Date(START.getTime() - HOUR).toISOString();
  return {
    subscription_id: subscriptionId,
    period: 1,
    attempt: 0,
    order_id: `${subscriptionId}-1-0`,
    amount: "19.90",
    currency: "USD",
    status,
    lease_until: new Date(START.getTime() - 30 * 60_000).toISOString(),
    created_at: created,
    updated_at: created,
  };
}

describe("sweepAttempts", () => {
  it("settles stale attempts through retrieve, requeues what needs a new call, and counts each outcome", async () => {
    const { repository, gateway, deps, queued, written } = fakeChargeServices();
    const cases = {
      sub_charged: "unknown", // the gateway has the sale: commit it
      sub_never: "pending", // no transaction: voided, next attempt goes through the queue
      sub_waiting: "retry", // its retry message was lost: requeue
      sub_dark: "unknown", // retrieve unavailable: postponed
    } as const;
    for (const [id, status] of Object.entries(cases)) {
      await repository.createSubscription(dueSubscription(id));
      await repository.claimAttempt(openAttempt(id, status));
    }
    gateway.lookup = (orderId) => {
      if (orderId.startsWith("sub_charged"))
        return { kind: "success", value: { state: "paid", transaction_id: "SBXT00000000000000000007" } };
      if (orderId.startsWith("sub_dark")) return { kind: "unavailable", reason: "HTTP 503" };
      return { kind: "success", value: { state: "none" } };
    };

    const report = await sweepAttempts(scheduledEvent(), deps);

    expect(report).toEqual({
      examined: 4,
      resolved: 1,
      requeued: 2,
      deferred: 1,
      checkouts: NO_CHECKOUTS,
      credits: { examined: 0, sent: 0 },
      refunds: NO_REFUNDS,
      failed: [],
      overdue: [],
    });
    expect(queued.map((message) => message.subscription_id).sort()).toEqual(["sub_never", "sub_waiting"]);
    expect(written.map((event) => event.type)).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.updated",
    ]);
    expect(recorded.values()).toMatchObject({
      AttemptsExamined: 4,
      AttemptsResolved: 1,
      AttemptsRequeued: 2,
      AttemptsDeferred: 1,
      ChargeSucceeded: 1,
      ChargeDeclined: 0,
    });
  });

  it("puts zeros when there is nothing to sweep", async () => {
    const { deps } = fakeChargeServices();
    expect(await sweepAttempts({}, deps)).toEqual({
      examined: 0,
      resolved: 0,
      requeued: 0,
      deferred: 0,
      checkouts: NO_CHECKOUTS,
      credits: { examined: 0, sent: 0 },
      refunds: NO_REFUNDS,
      failed: [],
      overdue: [],
    });
    expect(recorded.values()).toMatchObject({ AttemptsExamined: 0, ChargeSucceeded: 0 });
  });
});
