import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { paymentMethodWindowView } from "../../../functions/api/merchant-api-views";
import type { OutboxEvent } from "../../../functions/core/base/events";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { eventsOf } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { statusResultOf } from "../../support/payment-sandbox";
import type { RecordedRequest } from "../../support/recording-server";
import { drainIntake } from "../../support/webhook-receiver";
import { discardIntake, stackWithWebhooks } from "../../support/webhook-stack";

/*
 * Checkouts expire (README, Hosted checkout): a checkout or a new card's window not paid by its end is closed by the
 * attempt sweep and announced as checkout.expired; a sale the gateway holds at the end completes it instead; a payment
 * whose result comes after the end is refunded in full at once. Through the handlers as deployed: create-checkout and
 * update-payment-method behind the authorizer, the sandbox's window, status_url → process-intake, sweep-attempts.
 */

const START = new Date("2027-06-01T08:00:00.000Z");
const MINUTE = 60_000;
const INSUFFICIENT_FUNDS = "4000000000009995";
const MASTERCARD = "5555555555554444";

const { stack, container, call, checkout, payInWindow, statusCallback } = stackWithWebhooks({
  start: START,
});

beforeEach(async () => {
  await stack().clearEvents();
});

const later = (minutes: number) => stack().clock.advance(minutes * MINUTE);
const minutesFromNow = (minutes: number) => new Date(stack().clock.now().getTime() + minutes * MINUTE);

const subscriptionView = z.looseObject({
  status: z.string(),
  status_reason: z.string().optional(),
  card: z.object({ first4: z.string(), last4: z.string() }).nullable(),
});
const viewOf = async (id: string) =>
  subscriptionView.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
const lineOf = (subscriptionId: string, period: number, attempt: number) =>
  stack().services.repository.getAttempt({ subscription_id: subscriptionId, period, attempt });
const refundsAtGatewayOf = (orderId: string) =>
  [...stack().sandbox.state.payments.refunds()]
    .filter((refund) => refund.orderId === orderId)
    .map((refund) => [refund.refundId, refund.amount]);
/** Event types in their subscription's order (README, Events: sequence), then as they occurred. */
const typesOf = (events: readonly OutboxEvent[]) =>
  events.toSorted((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0)).map((event) => event.type);

/** What a window result issued (its token_id or recurring_id), as status_url received it. */
const issuedBy = (callback: RecordedRequest, field: "token_id" | "recurring_id") =>
  new URLSearchParams(statusResultOf(callback)).get(field) ?? "";

/** The customer pays in the window; its result (posted to status_url) is processed. */
async function pay(fgkey: string, cardNumber?: string) {
  await payInWindow(fgkey, cardNumber);
  await drainIntake(container);
}

describe("a checkout not paid by its end", () => {
  it("is closed by the sweep at its end (expires_in_minutes) and announced once, as checkout.expired", async () => {
    const started = await checkout({ expires_in_minutes: 30 });
    const end = minutesFromNow(30).toISOString();
    expect(started.expires_at).toBe(end);
    // The window's line waits for the customer until the end.
    expect(await lineOf(started.subscription_id, 0, 0)).toMatchObject({
      status: "pending",
      lease_until: end,
    });

    await later(29);
    expect((await stack().attemptSweep()).checkouts).toEqual({ examined: 0, expired: 0, deferred: 0 });
    expect(await viewOf(started.subscription_id)).toMatchObject({ status: "pending" });

    await later(2);
    const report = await stack().attemptSweep();
    expect(report.checkouts).toEqual({ examined: 1, expired: 1, deferred: 0 });
    expect(report.failed).toEqual([]);
    expect(await viewOf(started.subscription_id)).toMatchObject({
      status: "canceled",
      status_reason: "checkout_expired",
    });
    // Retrieve found no sale for its order: nothing was charged.
    expect(await lineOf(started.subscription_id, 0, 0)).toMatchObject({ status: "voided" });
    const events = await eventsOf(stack(), started.subscription_id);
    expect(typesOf(events)).toEqual(["subscription.created", "checkout.expired"]);
    expect(events.find((event) => event.type === "checkout.expired")).toMatchObject({
      purpose: "signup",
      expires_at: end,
      subscription: { status: "canceled", status_reason: "checkout_expired" },
    });

    await later(10);
    expect((await stack().attemptSweep()).checkouts).toEqual({ examined: 0, expired: 0, deferred: 0 });
  });

  it("a hosted checkout refused and never tried again is closed at its end, a day by default", async () => {
    const started = await checkout({ return_url: undefined });
    expect(Date.parse(started.expires_at) - stack().clock.now().getTime()).toBe(24 * 60 * MINUTE);
    await pay(started.fgkey, INSUFFICIENT_FUNDS);
    // Its page offers another try: pending, with no line open for the sweep to settle.
    expect(await viewOf(started.subscription_id)).toMatchObject({
      status: "pending",
      status_reason: "checkout_declined",
    });

    await later(24 * 60 + 1);
    expect((await stack().attemptSweep()).checkouts).toEqual({ examined: 1, expired: 1, deferred: 0 });
    expect(await viewOf(started.subscription_id)).toMatchObject({
      status: "canceled",
      status_reason: "checkout_expired",
    });
    expect(typesOf(await eventsOf(stack(), started.subscription_id))).toEqual([
      "subscription.created",
      "charge.failed",
      "checkout.expired",
    ]);
  });

  it("is completed, not expired, when the gateway holds its sale at the end (its status_url never came)", async () => {
    const started = await checkout({ expires_in_minutes: 20 });
    await payInWindow(started.fgkey);
    await discardIntake(stack());

    await later(21);
    const report = await stack().attemptSweep();
    expect(report.checkouts.expired).toBe(0);
    const view = await viewOf(started.subscription_id);
    expect(view.status).not.toBe("canceled");
    expect(await lineOf(started.subscription_id, 0, 0)).toMatchObject({ status: "succeeded" });
    const types = typesOf(await eventsOf(stack(), started.subscription_id));
    expect(types).toContain("charge.succeeded");
    expect(types).not.toContain("checkout.expired");
    expect(refundsAtGatewayOf(started.order_id)).toEqual([]);
  });

  it("refunds in full at once a payment whose result comes after the sweep closed it; it stays canceled", async () => {
    const started = await checkout({ expires_in_minutes: 15 });
    await later(16);
    expect((await stack().attemptSweep()).checkouts.expired).toBe(1);

    // The customer left the window open and pays in it now.
    await pay(started.fgkey);

    expect(await viewOf(started.subscription_id)).toMatchObject({
      status: "canceled",
      status_reason: "checkout_expired",
    });
    expect(await lineOf(started.subscription_id, 0, 0)).toMatchObject({
      status: "succeeded",
      refunded_amount: "29.00",
    });
    expect(refundsAtGatewayOf(started.order_id)).toEqual([[`${started.order_id}-A`, "29.00"]]);
    const events = await eventsOf(stack(), started.subscription_id);
    const types = typesOf(events);
    expect(types.slice(0, 3)).toEqual(["subscription.created", "checkout.expired", "charge.succeeded"]);
    // Placed on one sequence (the charge's revision): the invoice and the refund in either order.
    expect(types.slice(3, 5).sort()).toEqual(["invoice.finalized", "refund.succeeded"]);
    expect(types.slice(5)).toEqual(["credit_note.created"]);
    expect(events.find((event) => event.type === "refund.succeeded")).toMatchObject({
      amount: "29.00",
      reason: "expired before the payment settled",
    });
    // Nothing will charge the token the late sale created: deleted at the gateway, and so in the vault.
    const issued = issuedBy(statusCallback(), "token_id");
    expect(stack().sandbox.state.tokens.find(TEST_MERCHANT.mid, issued)?.status).toBe("deleted");
    expect(await stack().services.repository.getToken(issued)).toMatchObject({ status: "deleted" });
  });

  it("deletes the gateway-managed plan a late payment registered, so the gateway never charges it", async () => {
    const started = await checkout({ billing: "recurring", expires_in_minutes: 15 });
    await later(16);
    expect((await stack().attemptSweep()).checkouts.expired).toBe(1);

    await pay(started.fgkey);

    const plan = issuedBy(statusCallback(), "recurring_id");
    expect(stack().sandbox.state.recurring.find(TEST_MERCHANT.mid, plan)?.status).not.toBe("active");
    expect(refundsAtGatewayOf(started.order_id)).toEqual([[`${started.order_id}-A`, "29.00"]]);
    expect(await viewOf(started.subscription_id)).toMatchObject({ status: "canceled" });
  });

  it("closes it first when the result comes after its end but before the sweep: the payment goes back", async () => {
    const started = await checkout({ expires_in_minutes: 15 });
    await later(16);

    await pay(started.fgkey);

    expect(await viewOf(started.subscription_id)).toMatchObject({
      status: "canceled",
      status_reason: "checkout_expired",
    });
    expect(refundsAtGatewayOf(started.order_id)).toEqual([[`${started.order_id}-A`, "29.00"]]);
    const types = typesOf(await eventsOf(stack(), started.subscription_id));
    expect(types.slice(0, 3)).toEqual(["subscription.created", "checkout.expired", "charge.succeeded"]);
    // Placed on one sequence (the charge's revision): the invoice and the refund in either order.
    expect(types.slice(3, 5).sort()).toEqual(["invoice.finalized", "refund.succeeded"]);
    expect(types.slice(5)).toEqual(["credit_note.created"]);
    expect((await stack().attemptSweep()).checkouts).toEqual({ examined: 0, expired: 0, deferred: 0 });
  });

  it("refuses an end that is not 1 to 1440 whole minutes, naming the field, and starts nothing", async () => {
    for (const minutes of [0, 1441, 2.5, "30"]) {
      const answer = await call("POST", "/v1/checkouts", {
        body: {
          customer: { name: "Window Customer", email: "window@example.com" },
          plan: { amount: "29.00", currency: "USD", interval_months: 1 },
          billing: "token",
          expires_in_minutes: minutes,
        },
      });
      expect(answer.status, String(minutes)).toBe(400);
      expect(errorOf(answer).field).toBe("expires_in_minutes");
    }
  });
});

describe("a new card's window not paid by its end", () => {
  async function activeSubscription(): Promise<string> {
    const started = await checkout();
    await pay(started.fgkey);
    expect(await viewOf(started.subscription_id)).toMatchObject({ status: "active" });
    await stack().clearEvents();
    return started.subscription_id;
  }

  async function newCardWindow(id: string, window: Record<string, unknown>) {
    const answer = await call("POST", `/v1/subscriptions/${id}/payment-method`, { body: { window } });
    expect(answer.status, answer.text).toBe(201);
    return paymentMethodWindowView.parse(answer.json);
  }

  it("is voided by the sweep and announced as checkout.expired; a payment after that goes back, the card kept", async () => {
    const id = await activeSubscription();
    const before = await viewOf(id);
    const window = await newCardWindow(id, { expires_in_minutes: 15 });
    const end = minutesFromNow(15).toISOString();
    expect(window.expires_at).toBe(end);

    await later(16);
    await stack().attemptSweep();
    const key = attemptKeyOf(window.order_id);
    expect(key && (await stack().services.repository.getAttempt(key))).toMatchObject({
      status: "voided",
      purpose: "payment_method",
    });
    const expired = await eventsOf(stack(), id);
    expect(expired).toMatchObject([
      { type: "checkout.expired", purpose: "payment_method", order_id: window.order_id, expires_at: end },
    ]);

    await pay(window.fgkey, MASTERCARD);

    expect(await viewOf(id)).toMatchObject({ status: "active", card: before.card });
    expect(refundsAtGatewayOf(window.order_id)).toEqual([[`${window.order_id}-A`, "0.01"]]);
    const issued = issuedBy(statusCallback(), "token_id");
    expect(stack().sandbox.state.tokens.find(TEST_MERCHANT.mid, issued)?.status).toBe("deleted");
    expect(typesOf(await eventsOf(stack(), id))).toEqual([
      "checkout.expired",
      "charge.succeeded",
      "refund.succeeded",
    ]);
  });

  it("paid after its end but before the sweep: closed then, announced, and the payment goes back", async () => {
    const id = await activeSubscription();
    const before = await viewOf(id);
    const window = await newCardWindow(id, { expires_in_minutes: 5 });
    await later(6);

    await pay(window.fgkey, MASTERCARD);

    expect(await viewOf(id)).toMatchObject({ status: "active", card: before.card });
    expect(refundsAtGatewayOf(window.order_id)).toEqual([[`${window.order_id}-A`, "0.01"]]);
    expect(typesOf(await eventsOf(stack(), id))).toEqual([
      "checkout.expired",
      "charge.succeeded",
      "refund.succeeded",
    ]);
    expect((await stack().attemptSweep()).examined).toBe(0);
  });

  it("refuses an end that is not 1 to 1440 whole minutes, naming the field", async () => {
    const id = await activeSubscription();
    const answer = await call("POST", `/v1/subscriptions/${id}/payment-method`, {
      body: { window: { expires_in_minutes: 0 } },
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).field).toBe("window.expires_in_minutes");
  });
});
