import { describe, expect, it } from "vitest";
import {
  AD_HOC_FIRST_PERIOD,
  chargeKindOf,
  isAdHocPeriod,
} from "../../../../functions/core/base/charge-kind";
import { MAX_ORDER_ID_LENGTH } from "../../../../functions/core/base/order-id";
import { chargeAdHoc } from "../../../../functions/core/charging/ad-hoc-charge";
import { runAttemptSweep } from "../../../../functions/core/intake/attempt-sweep";
import type { RebillRequest } from "../../../../functions/core/ports/payment-gateway";
import { dueSubscription, fakeChargeServices, START } from "../../../support/fake-billing";

const NO_REFUNDS = { examined: 0, settled: 0, deferred: 0 };
const NO_CHECKOUTS = { examined: 0, expired: 0, deferred: 0 };

const ID = "sub_0123456789abcdef";

async function setUp(overrides: Parameters<typeof dueSubscription>[1] = {}) {
  const services = fakeChargeServices();
  const subscription = dueSubscription(ID, overrides);
  await services.repository.createSubscription(subscription);
  const rebills: RebillRequest[] = [];
  const script = services.gateway.script;
  services.gateway.script = (request) => {
    rebills.push(request);
    return script(request);
  };
  return { ...services, subscription, rebills };
}

const recorded = async (result: ReturnType<typeof chargeAdHoc>) => {
  const settled = await result;
  if (settled.kind !== "recorded") throw new Error(`not recorded: ${settled.kind}`);
  return settled.charge;
};

describe("ad hoc periods", () => {
  it("are a reserved range after any schedule, with order_ids within the gateway's 30 characters", () => {
    expect(isAdHocPeriod(AD_HOC_FIRST_PERIOD - 1)).toBe(false);
    expect(chargeKindOf(AD_HOC_FIRST_PERIOD)).toBe("ad_hoc");
    expect(`${ID}-9999-0`.length).toBeLessThanOrEqual(MAX_ORDER_ID_LENGTH);
  });
});

describe("chargeAdHoc", () => {
  it("re-bills the stored token on its own ledger line and leaves the subscription as it was", async () => {
    const { deps, subscription, rebills, written, repository } = await setUp();

    const line = await recorded(chargeAdHoc({ subscription_id: ID, amount: "5.00" }, deps));

    expect(line).toMatchObject({
      period: AD_HOC_FIRST_PERIOD,
      attempt: 0,
      order_id: `${ID}-${AD_HOC_FIRST_PERIOD}-0`,
      amount: "5.00",
      currency: "USD",
      status: "succeeded",
      transaction_id: "T".repeat(24),
    });
    expect(line.lease_until).toBeUndefined();
    expect(rebills).toEqual([
      expect.objectContaining({ order_id: line.order_id, token_id: subscription.token_id, amount: "5.00" }),
    ]);
    expect(await repository.getSubscription(ID)).toEqual(subscription);
    expect(written).toEqual([
      expect.objectContaining({ type: "charge.succeeded", order_id: line.order_id }),
      expect.objectContaining({ type: "invoice.finalized", order_id: line.order_id, total: line.amount }),
    ]);
  });

  it("takes the next free line each time, at the plan amount when none is given", async () => {
    const { deps } = await setUp();
    await chargeAdHoc({ subscription_id: ID }, deps);
    const second = await recorded(chargeAdHoc({ subscription_id: ID }, deps));
    expect(second).toMatchObject({ period: AD_HOC_FIRST_PERIOD + 1, amount: "19.90" });
  });

  it("moves past a line claimed concurrently since the ledger was read", async () => {
    const { deps, repository } = await setUp();
    const competitor = await recorded(chargeAdHoc({ subscription_id: ID }, deps));
    const listAttempts = repository.listAttempts.bind(repository);
    repository.listAttempts = async (id) => ((await listAttempts(id)).length > 0 ? [] : listAttempts(id));

    const line = await recorded(chargeAdHoc({ subscription_id: ID }, deps));

    expect(line.period).toBe(competitor.period + 1);
  });

  it("finds the line a repeated request made instead of charging again", async () => {
    const { deps, rebills } = await setUp();
    const first = await recorded(chargeAdHoc({ subscription_id: ID, request_key: "k1" }, deps));
    const again = await recorded(chargeAdHoc({ subscription_id: ID, request_key: "k1" }, deps));
    const other = await recorded(chargeAdHoc({ subscription_id: ID, request_key: "k2" }, deps));

    expect(again).toEqual(first);
    expect(other.period).toBe(first.period + 1);
    expect(rebills).toHaveLength(2);
  });

  it("voids the line when the gateway is unavailable; the same request may then charge a new line", async () => {
    const { deps, gateway, rebills, queued } = await setUp();
    const script = gateway.script;
    gateway.script = (request) => {
      rebills.push(request);
      return { kind: "unavailable", reason: "HTTP 503" };
    };
    const voided = await recorded(chargeAdHoc({ subscription_id: ID, request_key: "k" }, deps));
    gateway.script = script;
    const retried = await recorded(chargeAdHoc({ subscription_id: ID, request_key: "k" }, deps));

    expect(voided).toMatchObject({ status: "voided", period: AD_HOC_FIRST_PERIOD });
    expect(retried).toMatchObject({ status: "succeeded", period: AD_HOC_FIRST_PERIOD + 1 });
    expect(queued).toEqual([]);
  });

  it("records a decline on the line without dunning the subscription", async () => {
    const { deps, gateway, subscription, repository, written } = await setUp();
    gateway.script = () => ({ kind: "declined", code: "DC51", message: "insufficient funds" });

    const line = await recorded(chargeAdHoc({ subscription_id: ID }, deps));

    expect(line).toMatchObject({ status: "declined", rescode: "DC51" });
    expect(await repository.getSubscription(ID)).toEqual(subscription);
    expect(written).toEqual([expect.objectContaining({ type: "charge.failed", rescode: "DC51" })]);
  });

  it("leaves an unknown outcome to the attempt sweep, whose resolution never moves the subscription", async () => {
    const { deps, gateway, subscription, repository, written, queued } = await setUp();
    gateway.script = () => ({ kind: "unknown", reason: "timeout" });
    const unknown = await recorded(chargeAdHoc({ subscription_id: ID }, deps));
    const other = await recorded(chargeAdHoc({ subscription_id: ID }, deps));
    expect(unknown).toMatchObject({ status: "unknown" });
    expect(Date.parse(unknown.lease_until ?? "")).toBeGreaterThan(START.getTime());

    gateway.lookup = (orderId) =>
      orderId === unknown.order_id
        ? { kind: "success", value: { state: "paid", transaction_id: "S".repeat(24) } }
        : { kind: "success", value: { state: "none" } };
    const later = new Date(START.getTime() + 10 * 60_000);
    const report = await runAttemptSweep({ ...deps, clock: { now: () => later } });

    expect(report).toEqual({
      examined: 2,
      resolved: 2,
      requeued: 0,
      deferred: 0,
      checkouts: NO_CHECKOUTS,
      credits: { examined: 0, sent: 0 },
      refunds: NO_REFUNDS,
      failed: [],
      overdue: [],
    });
    expect(queued).toEqual([]);
    expect(await repository.getAttempt(unknown)).toMatchObject({
      status: "succeeded",
      transaction_id: "S".repeat(24),
    });
    expect(await repository.getAttempt(other)).toMatchObject({ status: "voided" });
    expect(await repository.getSubscription(ID)).toEqual(subscription);
    expect(written.map((event) => event.type)).toEqual(["charge.succeeded", "invoice.finalized"]);
  });

  it("charges nothing on a subscription that cannot be charged", async () => {
    const cases = [
      [{ status: "canceled" }, "subscription_canceled"],
      [{ status: "pending" }, "subscription_pending"],
      [{ token_id: undefined }, "no_stored_token"],
    ] as const;
    for (const [overrides, reason] of cases) {
      const { deps, rebills } = await setUp(overrides);
      expect(await chargeAdHoc({ subscription_id: ID }, deps)).toEqual({ kind: "not_chargeable", reason });
      expect(rebills).toEqual([]);
    }
    const { deps } = await setUp();
    expect(await chargeAdHoc({ subscription_id: "sub_none" }, deps)).toEqual({ kind: "not_found" });
  });

  it("charges a past_due subscription: the gateway decides", async () => {
    const { deps } = await setUp({ status: "past_due" });
    expect(await recorded(chargeAdHoc({ subscription_id: ID }, deps))).toMatchObject({ status: "succeeded" });
  });
});
