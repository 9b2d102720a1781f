import { describe, expect, it } from "vitest";
import { type EventFacts, placedByWrite } from "../../../../functions/core/base/events";
import type { Subscription } from "../../../../functions/core/base/model";
import { accountForEvents } from "../../../../local/chaos/event-accounting";
import { attempt, subscription } from "../../../support/billing-repository-contract";

const paid = attempt(
  { subscription_id: "sub_a", period: 1, attempt: 0 },
  { status: "succeeded", transaction_id: "tx_1", lease_until: undefined },
);
const refused = attempt(
  { subscription_id: "sub_b", period: 1, attempt: 0 },
  { status: "declined", rescode: "1001", lease_until: undefined },
);
const chargedBack = {
  ...paid,
  dispute: {
    status: "deducted",
    revision: 2,
    history: ["reported", "deducted"].map((status) => ({ status, received_at: paid.updated_at })),
  },
};

let ids = 0;
/** An event as the bus carries it, placed by a write of `on` (the subscription as the fixture has it). */
const detail = (
  event: EventFacts,
  eventId = `evt_${++ids}`,
  on: Subscription = subscription(event.subscription_id),
) =>
  JSON.stringify({
    ...placedByWrite(on, [event])[0],
    event_id: eventId,
    occurred_at: "2030-02-01T00:00:00.000Z",
  });
const facts = (line: typeof paid) => ({
  subscription_id: line.subscription_id,
  period: line.period,
  attempt: line.attempt,
  order_id: line.order_id,
  amount: line.amount,
  currency: line.currency,
});
const succeeded = detail({ type: "charge.succeeded", ...facts(paid), transaction_id: "tx_1" }, "evt_paid");
const failed = detail({ type: "charge.failed", ...facts(refused), reason: "declined", rescode: "1001" });
const pastDueB = subscription("sub_b", { status: "past_due", revision: 2 });
const pastDue = detail(
  { type: "subscription.past_due", subscription_id: "sub_b", reason: "payment_declined" },
  undefined,
  pastDueB,
);

describe("the chaos run's event account", () => {
  it("finds every fact announced, and counts copies of an event_id as duplicates", () => {
    const account = accountForEvents({
      details: [succeeded, failed, succeeded, pastDue],
      subscriptions: [subscription("sub_a"), pastDueB],
      attempts: [paid, refused, attempt({ subscription_id: "sub_c", period: 1, attempt: 0 })],
      undelivered: 0,
    });
    expect(account).toEqual({
      published: 4,
      distinct: 3,
      duplicates: 1,
      lost: [],
      inconsistent: [],
      misordered: [],
      undelivered: 0,
    });
  });

  it("calls a closed charge without its event, or a status its events do not reach, lost", () => {
    const account = accountForEvents({
      details: [succeeded],
      subscriptions: [subscription("sub_b", { status: "past_due" })],
      attempts: [paid, refused],
      undelivered: 2,
    });
    expect(account.lost).toEqual([
      `charge.failed of ${refused.order_id}`,
      "sub_b: past_due here, active from its events",
    ]);
    expect(account.undelivered).toBe(2);
  });

  it("folds a subscription's status events in arrival order", () => {
    const reactivated = detail({ type: "subscription.reactivated", subscription_id: "sub_b" });
    const account = accountForEvents({
      details: [pastDue, reactivated],
      subscriptions: [subscription("sub_b", { status: "past_due" })],
      attempts: [],
      undelivered: 0,
    });
    expect(account.lost).toEqual(["sub_b: past_due here, active from its events"]);
  });

  it("wants each chargeback received and at the status recorded here", () => {
    const received = {
      ...facts(paid),
      transaction_id: "tx_1",
      chargeback_status: "reported",
    };
    const onlyReported = accountForEvents({
      details: [succeeded, detail({ type: "chargeback.received", ...received })],
      subscriptions: [],
      attempts: [chargedBack],
      undelivered: 0,
    });
    expect(onlyReported.lost).toEqual([`chargeback status deducted of ${paid.order_id}`]);
    const deducted = detail({
      type: "chargeback.updated",
      ...received,
      chargeback_status: "deducted",
      previous_status: "reported",
    });
    expect(
      accountForEvents({
        details: [succeeded, deducted],
        subscriptions: [],
        attempts: [chargedBack],
        undelivered: 0,
      }).lost,
    ).toEqual([`chargeback.received of ${paid.order_id}`]);
  });

  it("reports an event_id whose copies differ", () => {
    const altered = detail({ type: "charge.succeeded", ...facts(paid), transaction_id: "tx_2" }, "evt_paid");
    const account = accountForEvents({
      details: [succeeded, altered],
      subscriptions: [],
      attempts: [paid],
      undelivered: 0,
    });
    expect(account.inconsistent).toEqual(["evt_paid (charge.succeeded) differs between copies"]);
  });

  it("wants every event placed, one view per sequence, and the highest sequence's view as stored", () => {
    const canceledB = subscription("sub_b", { status: "canceled", revision: 3 });
    const canceled = { type: "subscription.canceled", subscription_id: "sub_b", reason: "canceled" } as const;
    const inOrder = accountForEvents({
      // Arrival order is not sequence order: the consumer keeps the view of the highest sequence.
      details: [detail(canceled, "evt_c", canceledB), pastDue],
      subscriptions: [canceledB],
      attempts: [],
      undelivered: 0,
    });
    expect(inOrder.misordered).toEqual([]);

    const unplaced = JSON.stringify({
      ...canceled,
      event_id: "evt_u",
      occurred_at: "2030-02-01T00:00:00.000Z",
    });
    const twoViews = detail(canceled, "evt_t", { ...canceledB, metadata: { plan: "gold" } });
    const stale = accountForEvents({
      details: [pastDue, unplaced, detail(canceled, "evt_c", canceledB), twoViews],
      subscriptions: [{ ...canceledB, plan: { ...canceledB.plan, amount: "99.00" } }],
      attempts: [],
      undelivered: 0,
    });
    expect(stale.misordered).toEqual([
      "evt_u (subscription.canceled) has no sequence or subscription",
      "evt_t and evt_c: sequence 3000 with two views",
      "sub_b: the view of sequence 3000 is not the subscription as stored",
    ]);
  });
});

describe("the chaos run's account of MRR movements", () => {
  const pending = subscription("sub_m", { status: "pending", revision: 1 });
  const active = subscription("sub_m", { status: "active", revision: 2 });
  const created = JSON.stringify({
    ...placedByWrite(pending, [
      {
        type: "subscription.created",
        subscription_id: "sub_m",
        billing: "token",
        plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      },
    ])[0],
    event_id: "evt_created",
    occurred_at: "2030-01-01T00:00:00.000Z",
  });
  const activated = JSON.stringify({
    ...placedByWrite(active, [{ type: "subscription.activated", subscription_id: "sub_m" }], pending)[0],
    event_id: "evt_activated",
    occurred_at: "2030-01-01T00:00:01.000Z",
  });
  const account = (details: string[]) =>
    accountForEvents({ details, subscriptions: [active], attempts: [], undelivered: 0 }).lost;

  it("finds a subscription's MRR in the movements its events carried", () => {
    expect(account([created, activated])).toEqual([]);
  });

  it("calls an MRR no movement announced lost, once the bus has the subscription's whole history", () => {
    const unannounced = JSON.stringify({ ...JSON.parse(activated), mrr_movements: undefined });
    expect(account([created, unannounced])).toEqual([
      "sub_m: its MRR movements add up to 0.00 USD, its MRR is 19.90",
    ]);
    // Without its subscription.created, the bus holds only part of its history: nothing to add up.
    expect(account([unannounced])).toEqual([]);
  });
});
