import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeAdHoc } from "../../../functions/core/ad-hoc-charge";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/charge-policy";
import type { BillingEvent } from "../../../functions/core/events";
import { attemptKeyOf } from "../../../functions/core/order-id";
import { updatePaymentMethod } from "../../../functions/core/payment-method";
import { changePlan } from "../../../functions/core/plan-change";
import type { BillingRepository } from "../../../functions/core/ports";
import { cancelSubscription, pauseSubscription } from "../../../functions/core/subscription-changes";
import { BillingStack } from "../../../local/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { signUpOne } from "../../support/billing-scenarios";

// A change that money paid for applies once the money moved (README, Exactly once): a subscription write lost to
// another writer after the payment is read again and applied again, never answered with a conflict.

let stack: BillingStack;
beforeAll(async () => {
  stack = await BillingStack.start();
});
afterAll(() => stack.close());

/**
 * The repository, except that before the first write announcing `eventType` another writer changes the subscription
 * (`interfere`), so that write finds it changed.
 */
function racedBefore(
  eventType: BillingEvent["type"],
  interfere: (subscriptionId: string) => Promise<unknown>,
): BillingRepository {
  const { repository } = stack.services;
  let raced = false;
  return {
    ...repository,
    async updateSubscription(id, update) {
      if (!raced && update.events?.some((event) => event.type === eventType)) {
        raced = true;
        await interfere(id);
      }
      return repository.updateSubscription(id, update);
    },
  };
}

describe("paid changes racing other writes", () => {
  it("stores a new card that paid even when the subscription was paused meanwhile", async () => {
    const id = await signUpOne(stack, "4111111111111111");
    const before = await stack.services.repository.getSubscription(id);
    const repository = racedBefore("payment_method.updated", (subscriptionId) =>
      pauseSubscription(subscriptionId, undefined, stack.services),
    );
    const result = await updatePaymentMethod(
      { subscription_id: id, card: { number: "5555555555554444", expiry: "203012", cvc: "123" } },
      { ...stack.services, repository },
    );
    expect(result).toMatchObject({
      kind: "changed",
      subscription: { status: "paused", card: { last4: "4444" } },
    });
    const after = await stack.services.repository.getSubscription(id);
    expect(after?.token_id).not.toBe(before?.token_id);
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, before?.token_id ?? "")?.status).toBe(
      "deleted",
    );
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, after?.token_id ?? "")?.status).toBe("active");
  });
});

describe("prorated upgrades", () => {
  const upgrade = (id: string, amount: string, requestKey: string, deps = stack.services) =>
    changePlan({ subscription_id: id, amount, proration: "charge_now", request_key: requestKey }, deps);
  /** Proration sales the gateway holds for a subscription. */
  const prorationSales = (id: string) =>
    [...stack.sandbox.state.payments.payments()].filter(
      (payment) =>
        payment.status === "SALE" &&
        attemptKeyOf(payment.orderId)?.subscription_id === id &&
        isAdHoc(payment.orderId),
    );
  const isAdHoc = (orderId: string) => (attemptKeyOf(orderId)?.period ?? 0) >= 5000;
  /** A monthly subscription 10 days into its first paid period. */
  async function tenDaysIn(): Promise<string> {
    const id = await signUpOne(stack, "4111111111111111");
    const subscription = await stack.services.repository.getSubscription(id);
    await stack.clock.set(new Date(Date.parse(subscription?.anchor_at ?? "") + 10 * 86_400_000));
    return id;
  }

  it("charges one proration for concurrent requests of the same change, and none for a different one meanwhile", async () => {
    const id = await tenDaysIn();
    const [first, second, other] = await Promise.all([
      upgrade(id, "29.90", "key-a"),
      upgrade(id, "29.90", "key-b"),
      upgrade(id, "39.90", "key-c"),
    ]);
    const outcomes = [first, second, other].map((result) => result.kind);
    expect(outcomes.filter((kind) => kind === "changed").length).toBeGreaterThanOrEqual(1);
    expect(prorationSales(id)).toHaveLength(1);
    const stored = await stack.services.repository.getSubscription(id);
    expect(stored).toMatchObject({ plan: { amount: expect.stringMatching(/^(29|39)\.90$/) } });
    expect(stored?.pending_plan).toBeUndefined();
    // Repeated, the applied change charges nothing more.
    expect(await upgrade(id, stored?.plan.amount ?? "", "key-d")).toMatchObject({ kind: "changed" });
    expect(prorationSales(id)).toHaveLength(1);
  });

  it("applies a paid upgrade over a write that raced it", async () => {
    const id = await tenDaysIn();
    const repository = racedBefore("subscription.updated", (subscriptionId) =>
      pauseSubscription(subscriptionId, undefined, stack.services),
    );
    const result = await upgrade(id, "29.90", "key-race", { ...stack.services, repository });
    expect(result).toMatchObject({ kind: "changed", subscription: { plan: { amount: "29.90" } } });
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({
      status: "paused",
      plan: { amount: "29.90" },
    });
    expect(prorationSales(id)).toHaveLength(1);
  });

  /** An upgrade to 29.90 whose proration commits at the gateway but whose answer is lost: pending. */
  async function upgradeLosingTheAnswer(id: string): Promise<void> {
    stack.sandbox.faults.configure({
      routes: { "payments.tokenbilling.rebill": { timeoutAfterCommitRate: 1 } },
    });
    expect(await upgrade(id, "29.90", `key-lost-${id}`)).toMatchObject({ kind: "pending" });
    stack.sandbox.faults.configure({});
  }

  /** Past the in-flight window, then the attempt sweep. */
  async function sweepLater(): Promise<void> {
    await stack.clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
    await stack.attemptSweep();
  }

  it("applies an upgrade whose proration answer was lost once the sweep finds it paid, with no repeat asked", async () => {
    const id = await tenDaysIn();
    await upgradeLosingTheAnswer(id);
    // Another change meanwhile is refused before anything is charged.
    expect(await upgrade(id, "49.90", "key-other")).toMatchObject({ kind: "conflict" });
    await sweepLater();
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({ plan: { amount: "29.90" } });
    expect(prorationSales(id)).toHaveLength(1);
  });

  it("refunds a proration that settles paid after the subscription was canceled", async () => {
    const id = await tenDaysIn();
    await upgradeLosingTheAnswer(id);
    expect(await cancelSubscription(id, stack.services)).toMatchObject({ kind: "changed" });
    await sweepLater();
    const [sale] = prorationSales(id);
    expect(sale?.balance).toBe("0.00");
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({
      status: "canceled",
      plan: { amount: "19.90" },
    });
  });
});

describe("writes that fail after the gateway took the money", () => {
  /** The repository, except that its first write closing a line as paid throws (the table unavailable, say). */
  function failingFirstPaidClose(): BillingRepository {
    const { repository } = stack.services;
    let failed = false;
    return {
      ...repository,
      async updateAttempt(key, update) {
        if (!failed && update.set.status === "succeeded") {
          failed = true;
          throw new Error("the table is unavailable");
        }
        return repository.updateAttempt(key, update);
      },
    };
  }

  it("answers an ad hoc charge as being settled, never an error; the sweep settles it and the same key answers it", async () => {
    const id = await signUpOne(stack, "4111111111111111");
    const charge = () =>
      chargeAdHoc(
        { subscription_id: id, amount: "5.00", request_key: "key-table-down" },
        {
          ...stack.services,
          repository: failingFirstPaidClose(),
        },
      );
    expect(await charge()).toMatchObject({ kind: "recorded", charge: { status: "pending" } });
    await stack.clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
    await stack.attemptSweep();
    expect(await charge()).toMatchObject({ kind: "recorded", charge: { status: "succeeded" } });
    const sales = [...stack.sandbox.state.payments.payments()].filter(
      (payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id,
    );
    expect(sales).toHaveLength(2);
  });
});
