import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import type { Subscription } from "../../../../functions/core/base/model";
import type { GatewayOutcome } from "../../../../functions/core/base/outcome";
import { type ChargeDeps, processChargeMessage } from "../../../../functions/core/charging/charge-engine";
import { runChargeRun } from "../../../../functions/core/charging/charge-run";
import { runAttemptSweep } from "../../../../functions/core/intake/attempt-sweep";
import { applyInput } from "../../../../functions/core/machine/apply-input";
import type { BillingRepository } from "../../../../functions/core/ports/billing-repository";
import type { CouponStore } from "../../../../functions/core/ports/coupon-store";
import type {
  ChargeGateway,
  OrderLookup,
  RebillRequest,
} from "../../../../functions/core/ports/payment-gateway";
import type { ChargeMessage } from "../../../../functions/core/ports/queues";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { pendingEvents } from "../../../support/outbox-events";
import { partialPort } from "../../../support/partial-port";

/*
 * The charge protocol's branches on the memory repository (it passes the DynamoDB repository's contract suite). The
 * gateway here is a scripted stand-in so that each branch — lost response, crash between steps, refusal — can be
 * forced exactly; the same protocol runs through the handlers against the stateful sandbox in
 * test/integration/billing/exactly-once.test.ts.
 */

type Script = (request: RebillRequest) => GatewayOutcome<{ transaction_id?: string }> | "crash";

class ScriptedGateway implements ChargeGateway {
  readonly charges = new Map<string, string>(); // order_id → transaction_id: what the "gateway" actually charged
  readonly rebills: string[] = [];
  script: Script = () => ({ kind: "success", value: {} });
  lookupUnavailable = false;

  async rebill(request: RebillRequest) {
    this.rebills.push(request.order_id);
    const planned = this.script(request);
    if (planned === "crash") throw new Error("worker crashed before the call");
    const chargedAnyway =
      planned.kind === "success" || (planned.kind === "unknown" && planned.reason === "lost");
    if (chargedAnyway) {
      if (this.charges.has(request.order_id)) throw new Error(`order_id reused: ${request.order_id}`);
      this.charges.set(request.order_id, `TX-${request.order_id}`.padEnd(24, "0").slice(0, 24));
    }
    if (planned.kind === "success")
      return { kind: "success" as const, value: { transaction_id: this.charges.get(request.order_id) } };
    return planned;
  }

  readonly deletedTokens: string[] = [];
  deletion: GatewayOutcome<unknown> = { kind: "success", value: {} };
  async deleteToken(tokenId: string): Promise<GatewayOutcome<unknown>> {
    this.deletedTokens.push(tokenId);
    return this.deletion;
  }

  /** Renewals are never verifications: nothing here is refunded. */
  async refund(): Promise<never> {
    throw new Error("no refund is expected of a renewal");
  }
  async findRefund(): Promise<never> {
    throw new Error("no refund is expected of a renewal");
  }

  async findOrder({ order_id }: { order_id: string }): Promise<GatewayOutcome<OrderLookup>> {
    if (this.lookupUnavailable) return { kind: "unavailable", reason: "down" };
    const transaction_id = this.charges.get(order_id);
    return {
      kind: "success",
      value: transaction_id ? { state: "paid", transaction_id } : { state: "none" },
    };
  }
}

class TestClock {
  constructor(private current: Date) {}
  now = () => new Date(this.current);
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

class ListQueue {
  readonly sent: ChargeMessage[] = [];
  async send(messages: readonly ChargeMessage[]) {
    this.sent.push(...messages);
  }
}

let repository: BillingRepository;
let gateway: ScriptedGateway;
let clock: TestClock;
let queue: ListQueue;
let deps: ChargeDeps;

const START = new Date("2027-01-31T10:00:00.000Z");
const DAY = 86_400_000;
let counter = 0;

async function subscribe(overrides: Partial<Subscription> = {}): Promise<Subscription> {
  counter += 1;
  const subscription: Subscription = {
    subscription_id: `sub_${String(counter).padStart(6, "0")}`,
    status: "active",
    billing_mode: "token",
    customer: { name: "Grace Hopper", email: "grace@example.com" },
    plan: { amount: "29.00", currency: "USD", interval_months: 1 },
    anchor_at: START.toISOString(),
    period: 1,
    attempt: 0,
    next_charge_at: "2027-02-28T10:00:00.000Z",
    token_id: "tok_test",
    created_at: START.toISOString(),
    updated_at: START.toISOString(),
    ...overrides,
  };
  expect(await repository.createSubscription(subscription)).toBe(true);
  return subscription;
}

const message = (subscription: Subscription): ChargeMessage => ({
  subscription_id: subscription.subscription_id,
  period: subscription.period,
});

async function reload(subscription: Subscription): Promise<Subscription> {
  const current = await repository.getSubscription(subscription.subscription_id);
  if (!current) throw new Error("subscription vanished");
  return current;
}

beforeEach(() => {
  clock = new TestClock(new Date("2027-02-28T10:30:00.000Z"));
  repository = new MemoryBillingRepository({ clock });
  gateway = new ScriptedGateway();
  queue = new ListQueue();
  deps = {
    repository,
    gateway,
    clock,
    policy: DEFAULT_CHARGE_POLICY,
    coupons: partialPort<CouponStore>({}),
  };
});

describe("charge protocol", () => {
  it("charges a due period once and advances to the next, end-of-month anchored", async () => {
    const subscription = await subscribe();
    expect(await processChargeMessage(message(subscription), 1, deps)).toMatchObject({ kind: "done" });
    const after = await reload(subscription);
    expect(after).toMatchObject({
      period: 2,
      attempt: 0,
      status: "active",
      next_charge_at: "2027-03-31T10:00:00.000Z",
    });
    const [attempt] = await repository.listAttempts(subscription.subscription_id);
    expect(attempt).toMatchObject({ order_id: `${subscription.subscription_id}-1-0`, status: "succeeded" });
    expect(attempt?.lease_until).toBeUndefined();
    // The charge is placed on the subscription it was charged against, its invoice after it; the paid period follows.
    expect((await pendingEvents(repository)).map(({ type, sequence }) => [type, sequence])).toEqual([
      ["charge.succeeded", 500],
      ["invoice.finalized", 501],
      ["subscription.updated", 1000],
    ]);
    expect(attempt?.invoice_number).toBe("INV-2027-000001");
  });

  it("ignores duplicates: the same message twice, a stale period, a message before it is due", async () => {
    const subscription = await subscribe();
    await processChargeMessage(message(subscription), 1, deps);
    expect(await processChargeMessage(message(subscription), 2, deps)).toEqual({
      kind: "done",
      note: "period already settled",
    });
    const early = await subscribe({ next_charge_at: "2027-03-01T00:00:00.000Z" });
    expect(await processChargeMessage(message(early), 1, deps)).toEqual({ kind: "done", note: "not due" });
    expect(gateway.rebills).toEqual([`${subscription.subscription_id}-1-0`]);
  });

  it("two workers on the same message concurrently charge once", async () => {
    const subscription = await subscribe();
    const results = await Promise.all([
      processChargeMessage(message(subscription), 1, deps),
      processChargeMessage(message(subscription), 1, deps),
    ]);
    expect(results.every((result) => result.kind === "done")).toBe(true);
    expect(gateway.charges.size).toBe(1);
    expect((await reload(subscription)).period).toBe(2);
  });

  it("retries the same order_id after the gateway was unavailable", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({ kind: "unavailable", reason: "HTTP 503", status: 503 });
    expect(await processChargeMessage(message(subscription), 1, deps)).toMatchObject({
      kind: "retry",
      delaySeconds: 30,
    });
    gateway.script = () => ({ kind: "success", value: {} });
    expect(await processChargeMessage(message(subscription), 2, deps)).toMatchObject({ kind: "done" });
    expect(gateway.rebills).toEqual([
      `${subscription.subscription_id}-1-0`,
      `${subscription.subscription_id}-1-0`,
    ]);
    expect((await reload(subscription)).period).toBe(2);
  });

  it("a lost response (charged, then timeout) is resolved by retrieve after the window, with no second charge", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({ kind: "unknown", reason: "lost" });
    expect(await processChargeMessage(message(subscription), 1, deps)).toMatchObject({ kind: "done" });
    expect((await repository.listAttempts(subscription.subscription_id))[0]?.status).toBe("unknown");
    // Inside the window nothing resolves it, not even a redelivered message.
    gateway.script = () => ({ kind: "success", value: {} });
    await processChargeMessage(message(subscription), 2, deps);
    expect((await runAttemptSweep({ ...deps, queue })).examined).toBe(0);
    clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 1);
    expect(await runAttemptSweep({ ...deps, queue })).toMatchObject({
      examined: 1,
      resolved: 1,
      requeued: 0,
    });
    expect(gateway.rebills).toHaveLength(1);
    expect(await reload(subscription)).toMatchObject({ period: 2, status: "active" });
    expect((await repository.listAttempts(subscription.subscription_id))[0]).toMatchObject({
      status: "succeeded",
      transaction_id: gateway.charges.get(`${subscription.subscription_id}-1-0`),
    });
  });

  it("an unknown outcome that never charged is voided and the next attempt gets a new order_id", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({ kind: "unknown", reason: "timeout before the gateway acted" });
    await processChargeMessage(message(subscription), 1, deps);
    clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 1);
    expect(await runAttemptSweep({ ...deps, queue })).toMatchObject({ requeued: 1 });
    gateway.script = () => ({ kind: "success", value: {} });
    for (const queued of queue.sent) await processChargeMessage(queued, 1, deps);
    const attempts = await repository.listAttempts(subscription.subscription_id);
    expect(attempts.map((a) => [a.order_id, a.status])).toEqual([
      [`${subscription.subscription_id}-1-0`, "voided"],
      [`${subscription.subscription_id}-1-1`, "succeeded"],
    ]);
    expect(await reload(subscription)).toMatchObject({ period: 2, attempt: 0 });
  });

  it("a crash between claim and call is recovered by the attempt sweep through retrieve", async () => {
    const subscription = await subscribe();
    gateway.script = () => "crash";
    await expect(processChargeMessage(message(subscription), 1, deps)).rejects.toThrow(/crashed/);
    clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 1);
    gateway.script = () => ({ kind: "success", value: {} });
    await runAttemptSweep({ ...deps, queue });
    for (const queued of queue.sent) await processChargeMessage(queued, 1, deps);
    expect(gateway.charges.size).toBe(1);
    expect(await reload(subscription)).toMatchObject({ period: 2 });
  });

  it("a crash between the ledger write and the subscription advance is finished by the next delivery", async () => {
    const subscription = await subscribe();
    const failing: BillingRepository = {
      ...repository,
      updateSubscription: async () => {
        throw new Error("crash after the ledger write");
      },
    };
    await expect(
      processChargeMessage(message(subscription), 1, { ...deps, repository: failing }),
    ).rejects.toThrow();
    expect((await repository.listAttempts(subscription.subscription_id))[0]?.status).toBe("succeeded");
    await processChargeMessage(message(subscription), 2, deps);
    expect(gateway.charges.size).toBe(1);
    expect(await reload(subscription)).toMatchObject({ period: 2 });
    expect((await pendingEvents(repository)).map((e) => e.type)).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.updated",
    ]);
  });

  it("when retrieve cannot answer, the attempt sweep postpones: 5 minutes, then hourly, then daily", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({ kind: "unknown", reason: "lost" });
    await processChargeMessage(message(subscription), 1, deps);
    gateway.lookupUnavailable = true;
    const leases: number[] = [];
    for (const wait of [
      DEFAULT_CHARGE_POLICY.inflightWindowMs + 1,
      5 * 60_000,
      60 * 60_000,
      60 * 60_000,
      DAY,
    ]) {
      clock.advance(wait + 1);
      expect((await runAttemptSweep({ ...deps, queue })).deferred).toBe(1);
      const [attempt] = await repository.listAttempts(subscription.subscription_id);
      leases.push((Date.parse(attempt?.lease_until ?? "") - clock.now().getTime()) / 60_000);
    }
    expect(leases).toEqual([5, 5, 60, 60, 24 * 60]);
  });
});

describe("declines and dunning", () => {
  it("walks the schedule to past_due and canceled, one new order_id per attempt", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({ kind: "declined", code: "DC51", message: "Insufficient funds" });
    const statuses: string[] = [];
    for (let decline = 0; decline < 5; decline += 1) {
      const current = await reload(subscription);
      clock.advance(Math.max(0, Date.parse(current.next_charge_at ?? "") - clock.now().getTime()) + 1);
      await processChargeMessage(message(current), 1, deps);
      statuses.push((await reload(subscription)).status);
    }
    expect(statuses).toEqual(["past_due", "past_due", "past_due", "past_due", "canceled"]);
    expect(new Set(gateway.rebills).size).toBe(5);
    expect((await pendingEvents(repository)).filter((e) => e.type === "subscription.past_due")).toHaveLength(
      1,
    );
    // The charge's events are its ledger line's, the status events the subscription's (each item's in order).
    const subscriptionEvents = (await pendingEvents(repository)).filter((e) =>
      e.type.startsWith("subscription."),
    );
    expect(subscriptionEvents.at(-1)).toMatchObject({
      type: "subscription.canceled",
      reason: "dunning_exhausted",
    });
  });

  it("a later success reactivates and keeps the period anchor", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({ kind: "declined", code: "DC05", message: "Do not honor" });
    await processChargeMessage(message(subscription), 1, deps);
    clock.advance(DAY);
    gateway.script = () => ({ kind: "success", value: {} });
    await processChargeMessage(message(subscription), 1, deps);
    expect(await reload(subscription)).toMatchObject({
      status: "active",
      period: 2,
      next_charge_at: "2027-03-31T10:00:00.000Z",
    });
    const types = (await pendingEvents(repository)).map((e) => e.type);
    expect(types.filter((type) => type.startsWith("charge."))).toEqual(["charge.failed", "charge.succeeded"]);
    expect(types.filter((type) => type.startsWith("subscription."))).toEqual([
      "subscription.past_due",
      "subscription.reactivated",
      "subscription.updated",
    ]);
  });

  it("a dead card goes straight to past_due, card_required; the ledger keeps the errcode", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({
      kind: "declined",
      code: "1001",
      message: "Declined",
      errcode: "STOLEN_OR_LOST_CARD",
      deadEnd: "card_required",
    });
    await processChargeMessage(message(subscription), 1, deps);
    const after = await reload(subscription);
    expect(after).toMatchObject({ status: "past_due", status_reason: "card_required", attempt: 1 });
    expect(after.next_charge_at).toBeUndefined();
    const [attempt] = await repository.listAttempts(subscription.subscription_id);
    expect(attempt).toMatchObject({
      status: "declined",
      rescode: "1001",
      errcode: "STOLEN_OR_LOST_CARD",
      dead_end: "card_required",
    });
    expect((await pendingEvents(repository))[0]).toMatchObject({
      type: "charge.failed",
      errcode: "STOLEN_OR_LOST_CARD",
    });
    expect((await runChargeRun({ repository, queue, clock })).enqueued).toBe(0);
  });

  it("deletes the token of a subscription dunning cancels; an unconfirmed deletion is retried by the queue", async () => {
    const subscription = await subscribe({
      token_id: "tok_dunned",
      status: "past_due",
      attempt: 4,
      dunning: { step: 4, reason: "declined", since: START.toISOString() },
    });
    await repository.putToken({
      token_id: "tok_dunned",
      subscription_id: subscription.subscription_id,
      card: { first4: "4111", last4: "1111" },
      status: "active",
      created_at: START.toISOString(),
      updated_at: START.toISOString(),
    });
    gateway.script = () => ({ kind: "declined", code: "DC05", message: "Do not honor" });
    gateway.deletion = { kind: "unavailable", reason: "HTTP 503", status: 503 };
    expect(await processChargeMessage(message(subscription), 1, deps)).toMatchObject({
      kind: "retry",
      delaySeconds: 30,
    });
    expect(await reload(subscription)).toMatchObject({
      status: "canceled",
      status_reason: "dunning_exhausted",
    });
    expect(await repository.getToken("tok_dunned")).toMatchObject({ status: "active" });
    // The message comes back: the subscription is canceled, so its redelivery finishes the token's deletion.
    gateway.deletion = { kind: "success", value: {} };
    expect(await processChargeMessage(message(subscription), 2, deps)).toMatchObject({ kind: "done" });
    expect(await repository.getToken("tok_dunned")).toMatchObject({ status: "deleted" });
    expect(gateway.deletedTokens).toEqual(["tok_dunned", "tok_dunned"]);
    // Once deleted, further messages ask the gateway nothing.
    await processChargeMessage(message(subscription), 3, deps);
    expect(gateway.deletedTokens).toHaveLength(2);
    expect(gateway.rebills).toHaveLength(1);
  });

  it("a revoked token goes straight to past_due with its reason and is not retried", async () => {
    const subscription = await subscribe();
    gateway.script = () => ({
      kind: "declined",
      code: "TK02",
      message: "Token revoked",
      deadEnd: "token_revoked",
    });
    await processChargeMessage(message(subscription), 1, deps);
    const after = await reload(subscription);
    expect(after).toMatchObject({ status: "past_due", status_reason: "token_revoked" });
    expect(after.next_charge_at).toBeUndefined();
    expect((await runChargeRun({ repository, queue, clock })).enqueued).toBe(0);
  });
});

describe("charge run", () => {
  it("enqueues each due subscription once per run and overlapping runs charge once", async () => {
    const due = await Promise.all([subscribe(), subscribe(), subscribe()]);
    await subscribe({ next_charge_at: "2027-03-15T00:00:00.000Z" });
    await Promise.all([
      runChargeRun({ repository, queue, clock }),
      runChargeRun({ repository, queue, clock }),
    ]);
    expect(queue.sent).toHaveLength(6);
    await Promise.all(queue.sent.map((queued) => processChargeMessage(queued, 1, deps)));
    expect(gateway.charges.size).toBe(3);
    for (const subscription of due) expect((await reload(subscription)).period).toBe(2);
  });
});

describe("a cancel scheduled at period end while a charge was in flight", () => {
  it("finishes the charge first: paid, the new period runs out before the cancel", async () => {
    const subscription = await subscribe();
    const key = { subscription_id: subscription.subscription_id, period: 1, attempt: 0 };
    // The charge was claimed and paid; the worker died before moving the subscription on.
    gateway.script = () => ({ kind: "success", value: {} });
    const crashing = {
      ...deps,
      repository: {
        ...repository,
        updateSubscription: async () => {
          throw new Error("died after the close");
        },
      },
    };
    await expect(processChargeMessage(message(subscription), 1, crashing)).rejects.toThrow(
      "died after the close",
    );
    expect(await repository.getAttempt(key)).toMatchObject({ status: "succeeded" });
    const scheduled = await applyInput(await reload(subscription), { kind: "cancel_at_period_end" }, deps);
    expect(scheduled).toMatchObject({
      kind: "applied",
      subscription: { cancel_at: "2027-02-28T10:00:00.000Z" },
    });

    await processChargeMessage(message(subscription), 2, deps);
    expect(gateway.rebills).toHaveLength(1);
    expect(await reload(subscription)).toMatchObject({
      status: "active",
      period: 2,
      next_charge_at: "2027-03-31T10:00:00.000Z",
      cancel_at: "2027-03-31T10:00:00.000Z",
    });
    clock.advance(31 * DAY);
    await processChargeMessage({ subscription_id: subscription.subscription_id, period: 2 }, 1, deps);
    expect(gateway.rebills).toHaveLength(1);
    expect(await reload(subscription)).toMatchObject({
      status: "canceled",
      status_reason: "canceled_at_period_end",
    });
  });
});
