import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changePlan } from "../../../functions/core/plan-change";
import { recordRecurringCharge } from "../../../functions/core/recurring-notice";
import { refundCharge } from "../../../functions/core/refunds";
import { type SignupRequest, signUpWithCard } from "../../../functions/core/signup";
import { cancelSubscription } from "../../../functions/core/subscription-changes";
import { BillingStack } from "../../../local/billing-stack";
import { SimulatedCrash } from "../../../local/crash-injection";
import { eventsOf } from "../../support/billing-scenarios";

/*
 * Refunds, plan changes and gateway-managed recurring plans through the real adapters and the stateful sandbox.
 */

interface Notice {
  readonly subscription_id: string;
  readonly body: { order_id: string; rescode: string };
}

let stack: BillingStack;
let receiver: Server;
const notices: Notice[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://receiver");
      notices.push({
        subscription_id: url.searchParams.get("subscription_id") ?? "",
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      });
      response
        .writeHead(200, { "content-type": "application/json" })
        .end('{"rescode":"0000","resmsg":"Success"}');
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const address = receiver.address();
  if (address === null || typeof address === "string") throw new Error("receiver has no port");
  stack = await BillingStack.start({
    start: new Date("2027-05-31T08:00:00.000Z"),
    webhookBaseUrl: `http://127.0.0.1:${address.port}/webhooks`,
  });
});

afterAll(async () => {
  await stack.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const customer = { name: "Ada Lovelace", email: "ada@example.com" };
const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };

async function signUp(overrides: Partial<SignupRequest> = {}) {
  const result = await signUpWithCard(
    {
      customer,
      card,
      billing: "token",
      plan: { amount: "50.00", currency: "USD", interval_months: 1 },
      ...overrides,
    },
    stack.services,
  );
  if (result.kind !== "active") throw new Error(`sign-up ${result.kind}`);
  return result.subscription;
}

describe("refunds", () => {
  it("refunds partially, then the rest, never below zero, idempotent by refund_id", async () => {
    const subscription = await signUp();
    const charge = { subscription_id: subscription.subscription_id, period: 0, attempt: 0 };
    const first = await refundCharge(
      { charge, refund_id: `${subscription.subscription_id}-r1`, amount: "20.00", reason: "partial" },
      stack.services,
    );
    expect(first).toMatchObject({ kind: "refunded", refund: { amount: "20", status: "succeeded" } });
    const again = await refundCharge(
      { charge, refund_id: `${subscription.subscription_id}-r1`, amount: "20.00", reason: "partial" },
      stack.services,
    );
    expect(again.kind).toBe("existing");
    expect(
      await refundCharge(
        { charge, refund_id: `${subscription.subscription_id}-r2`, amount: "40.00", reason: "too much" },
        stack.services,
      ),
    ).toEqual({
      kind: "not_refundable",
      reason: "amount exceeds the balance 30",
    });
    const rest = await refundCharge(
      { charge, refund_id: `${subscription.subscription_id}-r3`, reason: "the rest" },
      stack.services,
    );
    expect(rest).toMatchObject({ kind: "refunded", refund: { amount: "30" } });
    expect((await stack.services.repository.getAttempt(charge))?.refunded_amount).toBe("50");

    const sale = stack.sandbox.state.payments.findFinalTransaction(
      stack.sandbox.merchants.list()[0]?.mid ?? "",
      `${subscription.subscription_id}-0-0`,
    );
    expect(Number(sale?.balance)).toBe(0);
    const refunds = [...stack.sandbox.state.payments.refunds()].filter(
      (refund) => refund.orderId === `${subscription.subscription_id}-0-0`,
    );
    expect(refunds.map((refund) => Number(refund.amount))).toEqual([20, 30]);
    expect(await stack.services.repository.listRefunds(subscription.subscription_id)).toHaveLength(2);
  });

  it("refuses to refund what was not charged", async () => {
    const outcome = await refundCharge(
      { charge: { subscription_id: "sub_none", period: 0, attempt: 0 }, refund_id: "r-none", reason: "x" },
      stack.services,
    );
    expect(outcome.kind).toBe("not_refundable");
  });
});

describe("plan changes", () => {
  it("adjusts a token plan from the next charge on and cancels it", async () => {
    const subscription = await signUp();
    expect(
      await changePlan(
        { subscription_id: subscription.subscription_id, amount: "65.00", proration: "none" },
        stack.services,
      ),
    ).toMatchObject({
      kind: "changed",
      subscription: { plan: { amount: "65.00" } },
    });
    const canceled = await cancelSubscription(subscription.subscription_id, stack.services);
    expect(canceled).toMatchObject({ kind: "changed", subscription: { status: "canceled" } });
    const stored = await stack.services.repository.getSubscription(subscription.subscription_id);
    expect(stored?.next_charge_at).toBeUndefined();
    // The charge worker deletes the canceled subscription's token at the gateway: no live token is kept.
    const tokenId = subscription.token_id ?? "";
    expect(tokenId).not.toBe("");
    await stack.drainChargeQueue();
    const mid = stack.sandbox.merchants.list()[0]?.mid ?? "";
    expect(stack.sandbox.state.tokens.find(mid, tokenId)?.status).toBe("deleted");
    expect(await stack.services.repository.getToken(tokenId)).toMatchObject({ status: "deleted" });
    expect(
      await changePlan(
        { subscription_id: subscription.subscription_id, amount: "70.00", proration: "none" },
        stack.services,
      ),
    ).toMatchObject({
      kind: "conflict",
    });
    const announced = await eventsOf(stack, subscription.subscription_id);
    expect(announced.filter((event) => event.type === "subscription.canceled")).toEqual([
      {
        type: "subscription.canceled",
        subscription_id: subscription.subscription_id,
        reason: "canceled_by_merchant",
        event_id: expect.any(String),
        occurred_at: expect.any(String),
      },
    ]);
  });

  it("records the gateway's recurring charges once each, after retrieve confirms them; adjust and delete go to the gateway", async () => {
    const subscription = await signUp({ billing: "recurring" });
    expect(subscription.recurring_id).toBeDefined();
    expect(subscription.next_charge_at).toBeUndefined();
    const mid = stack.sandbox.merchants.list()[0]?.mid ?? "";

    // The sandbox charges the plan on its clock and calls our recurring_noti_url.
    await stack.clock.set(new Date("2027-07-01T00:00:00.000Z"));
    await stack.sandbox.deliveries.settled();
    const mine = notices.filter((notice) => notice.subscription_id === subscription.subscription_id);
    expect(mine).toHaveLength(1);
    const notice = { subscription_id: subscription.subscription_id, order_id: mine[0]?.body.order_id ?? "" };
    expect(await recordRecurringCharge(notice, stack.services)).toMatchObject({
      kind: "recorded",
      attempt: { status: "succeeded" },
    });
    expect(await recordRecurringCharge(notice, stack.services)).toEqual({ kind: "duplicate" });
    expect(await stack.services.repository.getSubscription(subscription.subscription_id)).toMatchObject({
      period: 2,
      status: "active",
    });

    // A notice for an order the gateway never sold changes nothing; nor does one naming another plan.
    const before = await stack.services.repository.getSubscription(subscription.subscription_id);
    for (const forged of [
      { subscription_id: subscription.subscription_id, order_id: "forged-order-1" },
      { ...notice, order_id: `${notice.order_id}x`, recurring_id: "RC_OTHER_PLAN" },
    ]) {
      expect(await recordRecurringCharge(forged, stack.services)).toMatchObject({ kind: "ignored" });
    }
    expect(await stack.services.repository.getSubscription(subscription.subscription_id)).toEqual(before);
    expect(await stack.services.repository.listAttempts(subscription.subscription_id)).toHaveLength(2);

    expect(
      await changePlan(
        { subscription_id: subscription.subscription_id, amount: "75.00", proration: "none" },
        stack.services,
      ),
    ).toMatchObject({
      kind: "changed",
    });
    const plan = stack.sandbox.state.recurring.find(mid, subscription.recurring_id ?? "");
    expect(plan?.amount).toBe("75.00");
    expect(await cancelSubscription(subscription.subscription_id, stack.services)).toMatchObject({
      kind: "changed",
    });
    expect(stack.sandbox.state.recurring.find(mid, subscription.recurring_id ?? "")?.status).not.toBe(
      "active",
    );
  });

  it("a gateway charge whose subscription write was lost to a crash moves the subscription on when the notice comes again", async () => {
    const subscription = await signUp({ billing: "recurring" });
    const { subscription_id } = subscription;
    await stack.clock.set(new Date("2027-09-01T00:00:00.000Z"));
    await stack.sandbox.deliveries.settled();
    const notice = {
      subscription_id,
      order_id: notices.find((sent) => sent.subscription_id === subscription_id)?.body.order_id ?? "",
    };
    const crashing = {
      ...stack.services,
      repository: {
        ...stack.services.repository,
        updateSubscription: async () => {
          throw new SimulatedCrash("died after the ledger line");
        },
      },
    };
    await expect(recordRecurringCharge(notice, crashing)).rejects.toThrow(SimulatedCrash);
    expect(await stack.services.repository.getSubscription(subscription_id)).toMatchObject({ period: 1 });

    expect(await recordRecurringCharge(notice, stack.services)).toEqual({ kind: "duplicate" });
    expect(await stack.services.repository.getSubscription(subscription_id)).toMatchObject({
      period: 2,
      status: "active",
    });
    const charges = (await eventsOf(stack, subscription_id)).filter(
      (event) => event.type === "charge.succeeded",
    );
    expect(charges.map((event) => event.order_id)).toEqual([expect.any(String), notice.order_id]);
  });

  it("a gateway charge of a canceled subscription is recorded and announced, and the subscription stays canceled", async () => {
    const subscription = await signUp({ billing: "recurring" });
    const { subscription_id } = subscription;
    await stack.clock.set(new Date("2027-11-01T00:00:00.000Z"));
    await stack.sandbox.deliveries.settled();
    const order_id = notices.find((sent) => sent.subscription_id === subscription_id)?.body.order_id ?? "";
    // Canceled here after the gateway charged, before its notice was taken.
    await stack.services.repository.updateSubscription(subscription_id, {
      expect: {},
      set: { status: "canceled", status_reason: "canceled_by_merchant" },
    });
    expect(await recordRecurringCharge({ subscription_id, order_id }, stack.services)).toMatchObject({
      kind: "recorded",
      attempt: { status: "succeeded", order_id },
    });
    expect(await stack.services.repository.getSubscription(subscription_id)).toMatchObject({
      status: "canceled",
      period: 1,
    });
    expect((await eventsOf(stack, subscription_id)).map((event) => event.type)).toContain("charge.succeeded");
  });
});
