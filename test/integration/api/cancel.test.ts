import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/base/charge-policy";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { clockIntoPeriod, eventsOf, eventTypesOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Cancel through the merchant API (README, Subscription lifecycle). At the end of the paid period: access runs until
// then, the charge run charges nothing more and ends the subscription, and an update undoes it before then. Now: with
// a refund of the last paid period, prorated or full, made once.

const {
  call,
  stack,
  signUp: signUpAnswer,
  salesOf,
} = merchantApiOnStack("mk_test_5e4d3c2b1a09f8e7d6c5b4a392817160");

const view = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  status_reason: z.string().optional(),
  next_charge_at: z.string().nullable(),
  current_period: z.object({ start: z.string(), end: z.string() }).nullable(),
  cancel_at: z.string().nullable(),
});

const signUp = async (billing?: "token" | "recurring", cardNumber?: string) =>
  view.parse(await signUpAnswer(billing, cardNumber));

describe("cancel at period end", () => {
  it("keeps access until the paid period ends, charges nothing more, then cancels and deletes the token", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const scheduled = await call("DELETE", `/v1/subscriptions/${id}`, { body: { at_period_end: true } });
    expect(scheduled.status).toBe(200);
    expect(view.parse(scheduled.json)).toMatchObject({
      status: "active",
      cancel_at: signedUp.next_charge_at,
    });
    // Asking again answers the same.
    const again = await call("DELETE", `/v1/subscriptions/${id}`, { body: { at_period_end: true } });
    expect(view.parse(again.json).cancel_at).toBe(signedUp.next_charge_at);

    await renewAfter(stack(), signedUp.next_charge_at);
    const ended = view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
    expect(ended).toMatchObject({
      status: "canceled",
      status_reason: "canceled_at_period_end",
      next_charge_at: null,
    });
    expect(salesOf(id)).toBe(1);
    const tokenId = (await stack().services.repository.getSubscription(id))?.token_id ?? "";
    expect(stack().sandbox.state.tokens.find(TEST_MERCHANT.mid, tokenId)?.status).toBe("deleted");
    expect((await eventTypesOf(stack(), id)).subscription).toEqual([
      "subscription.created",
      "subscription.activated",
      "subscription.cancel_scheduled",
      "subscription.canceled",
    ]);
  });

  it("is undone by an update before the period ends: the next period is charged as usual", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    await call("DELETE", `/v1/subscriptions/${id}`, { body: { at_period_end: true } });
    const undone = await call("POST", `/v1/subscriptions/${id}`, { body: { cancel_at_period_end: false } });
    expect(undone.status).toBe(200);
    expect(view.parse(undone.json)).toMatchObject({ status: "active", cancel_at: null });

    await renewAfter(stack(), signedUp.next_charge_at);
    expect(view.parse((await call("GET", `/v1/subscriptions/${id}`)).json).status).toBe("active");
    expect(salesOf(id)).toBe(2);
    const types = await eventTypesOf(stack(), id);
    expect(types.subscription).toEqual([
      "subscription.created",
      "subscription.activated",
      "subscription.cancel_scheduled",
      "subscription.updated",
      // The next period, paid.
      "subscription.updated",
    ]);
  });

  it("is refused, changing nothing, where no paid period runs here; a cancel now still works", async () => {
    const recurring = await signUp("recurring");
    const refused = await call("DELETE", `/v1/subscriptions/${recurring.subscription_id}`, {
      body: { at_period_end: true },
    });
    expect(refused.status).toBe(409);
    expect(errorOf(refused).message).toContain("gateway-managed");
    expect(
      view.parse((await call("GET", `/v1/subscriptions/${recurring.subscription_id}`)).json).cancel_at,
    ).toBeNull();

    const bad = await call("DELETE", `/v1/subscriptions/${recurring.subscription_id}`, {
      body: { at_period_end: "yes" },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("at_period_end");

    const now = await call("DELETE", `/v1/subscriptions/${recurring.subscription_id}`);
    expect(view.parse(now.json).status).toBe("canceled");
  });
});

const chargeList = z.object({
  charges: z.array(z.object({ period: z.number(), amount: z.string(), refunded_amount: z.string() })),
});

describe("cancel now with a refund", () => {
  it("gives back the unused part of the paid period, once however often the cancel is repeated", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const unused = await clockIntoPeriod(stack(), signedUp.current_period, 10);
    const canceled = await call("DELETE", `/v1/subscriptions/${id}`, { body: { refund: "prorated" } });
    expect(canceled.status).toBe(200);
    expect(view.parse(canceled.json).status).toBe("canceled");
    const expected = (Math.floor(1990 * unused) / 100).toFixed(2);
    const charges = chargeList.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
    expect(charges).toEqual([expect.objectContaining({ period: 0, refunded_amount: expected })]);

    // Repeating it (even asking for all of it) refunds nothing more.
    expect((await call("DELETE", `/v1/subscriptions/${id}`, { body: { refund: "full" } })).status).toBe(200);
    const again = chargeList.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
    expect(again[0]?.refunded_amount).toBe(expected);
    const refunds = [...stack().sandbox.state.payments.refunds()].filter((refund) =>
      refund.orderId.startsWith(id),
    );
    expect(refunds).toHaveLength(1);
    const events = await eventsOf(stack(), id);
    expect(events.filter((event) => event.type === "refund.succeeded")).toEqual([
      expect.objectContaining({
        amount: expected,
        external_id: "acct_42",
        reason: "canceled, prorated refund",
      }),
    ]);
  });

  it("gives back the whole period with refund full, and nothing by default", async () => {
    const full = await signUp();
    await clockIntoPeriod(stack(), full.current_period, 3);
    await call("DELETE", `/v1/subscriptions/${full.subscription_id}`, { body: { refund: "full" } });
    const charges = chargeList.parse(
      (await call("GET", `/v1/subscriptions/${full.subscription_id}/charges`)).json,
    ).charges;
    expect(charges[0]?.refunded_amount).toBe("19.90");

    const none = await signUp();
    await call("DELETE", `/v1/subscriptions/${none.subscription_id}`);
    const kept = chargeList.parse(
      (await call("GET", `/v1/subscriptions/${none.subscription_id}/charges`)).json,
    ).charges;
    expect(kept[0]?.refunded_amount).toBe("0.00");
  });

  it("refuses a refund with a cancel at period end, naming the field and changing nothing", async () => {
    const signedUp = await signUp();
    const bad = await call("DELETE", `/v1/subscriptions/${signedUp.subscription_id}`, {
      body: { at_period_end: true, refund: "prorated" },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("refund");
    const unknown = await call("DELETE", `/v1/subscriptions/${signedUp.subscription_id}`, {
      body: { refund: "half" },
    });
    expect(unknown.status).toBe(400);
    expect((await call("GET", `/v1/subscriptions/${signedUp.subscription_id}`)).json).toMatchObject({
      status: "active",
      cancel_at: null,
    });
  });
});

describe("cancel now while the renewal's charge is in flight", () => {
  it("refunds in full a renewal that settles paid after the cancel, and keeps no sale for that period", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    // The renewal's REBILL commits at the gateway, but its answer is lost: the attempt is unknown.
    stack().sandbox.faults.configure({
      routes: { "payments.tokenbilling.rebill": { timeoutAfterCommitRate: 1 } },
    });
    await renewAfter(stack(), signedUp.next_charge_at);
    stack().sandbox.faults.configure({});
    const renewal = (await stack().services.repository.listAttempts(id)).find((line) => line.period === 1);
    expect(renewal?.status).toBe("unknown");

    const canceled = await call("DELETE", `/v1/subscriptions/${id}`, { body: { refund: "prorated" } });
    expect(canceled.status).toBe(200);
    expect(view.parse(canceled.json).status).toBe("canceled");

    // The attempt sweep finds the sale: the period never comes, so the sale goes back in full, once.
    for (let sweep = 0; sweep < 2; sweep += 1) {
      await stack().clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
      await stack().attemptSweep();
    }
    const line = await stack().services.repository.getAttempt({ subscription_id: id, period: 1, attempt: 0 });
    expect(line).toMatchObject({ status: "succeeded", refunded_amount: line?.amount });
    const refunds = [...stack().sandbox.state.payments.refunds()].filter(
      (refund) => refund.orderId === line?.order_id,
    );
    expect(refunds.map((refund) => [refund.refundId, refund.amount])).toEqual([
      [`${line?.order_id}-A`, "19.90"],
    ]);
    // The prorated refund was of the last period the customer had (period 0, over when the cancel came): nothing.
    const firstCharge = `${id}-0-0`;
    expect(
      [...stack().sandbox.state.payments.refunds()].filter((refund) => refund.orderId === firstCharge),
    ).toEqual([]);
    const events = await eventsOf(stack(), id);
    expect(events.filter((event) => event.type === "refund.succeeded")).toMatchObject([
      { order_id: line?.order_id, amount: "19.90", reason: "canceled before the charge settled" },
    ]);
    expect((await stack().services.repository.getSubscription(id))?.status).toBe("canceled");
  });

  it("refunds a sign-up's first payment that settles paid after the sign-up was canceled", async () => {
    stack().sandbox.faults.configure({ routes: { "payments.payment": { timeoutAfterCommitRate: 1 } } });
    const pending = await call("POST", "/v1/subscriptions", {
      body: {
        customer: { name: "Late Payer", email: "late@example.com" },
        plan: { amount: "19.90", currency: "USD", interval_months: 1 },
        card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
      },
    });
    stack().sandbox.faults.configure({});
    expect(pending.status).toBe(202);
    const id = view.parse(pending.json).subscription_id;
    expect((await call("DELETE", `/v1/subscriptions/${id}`)).status).toBe(200);

    await stack().clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
    await stack().attemptSweep();
    await stack().clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
    await stack().attemptSweep();
    const line = await stack().services.repository.getAttempt({ subscription_id: id, period: 0, attempt: 0 });
    expect(line).toMatchObject({ status: "succeeded", refunded_amount: "19.90" });
    expect((await stack().services.repository.getSubscription(id))?.status).toBe("canceled");
  });
});
