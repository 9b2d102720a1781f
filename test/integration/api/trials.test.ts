import { describe, expect, it } from "vitest";
import { z } from "zod";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { eventTypesOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Trials through the merchant API (README, Subscription lifecycle: trialing): the card is verified by the smallest
// charge its currency allows, refunded at once; nothing more is charged until the trial ends, when the first period
// is charged and the subscription is active (or past_due, if the card is refused then).

const { call, stack } = merchantApiOnStack("mk_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0");

const view = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  trial_end: z.string().nullable(),
  next_charge_at: z.string().nullable(),
  current_period: z.object({ index: z.number(), start: z.string() }).nullable(),
});

const trialSignUp = (plan: object, cardNumber = "4111111111111111") =>
  call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Ada Lovelace", email: "ada@example.com" },
      plan: { amount: "19.90", currency: "USD", interval_months: 1, ...plan },
      card: { number: cardNumber, expiry: "203012", cvc: "123" },
    },
  });

const paymentsOf = (id: string) =>
  [...stack().sandbox.state.payments.payments()]
    .filter((payment) => attemptKeyOf(payment.orderId)?.subscription_id === id)
    .map((payment) => [attemptKeyOf(payment.orderId)?.period, payment.amount, payment.status]);

describe("trials", () => {
  it("verifies the card, charges nothing during the trial, then charges the first period when it ends", async () => {
    const started = stack().clock.now().getTime();
    const answer = await trialSignUp({ trial_days: 14 });
    expect(answer.status).toBe(201);
    const trial = view.parse(answer.json);
    const trialEnd = new Date(started + 14 * 86_400_000).toISOString();
    expect(trial).toMatchObject({
      status: "trialing",
      trial_end: trialEnd,
      next_charge_at: trialEnd,
      current_period: null,
    });
    const id = trial.subscription_id;
    // The verification: the smallest amount, cancelled in full at once.
    expect(paymentsOf(id)).toEqual([[0, "0.01", "SALE"]]);
    expect(await stack().services.repository.listAttempts(id)).toMatchObject([
      { period: 0, amount: "0.01", status: "succeeded", refunded_amount: "0.01" },
    ]);
    const refunds = [...stack().sandbox.state.payments.refunds()].filter((refund) =>
      refund.orderId.startsWith(id),
    );
    expect(refunds).toHaveLength(1);

    await renewAfter(stack(), trialEnd);
    const active = view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
    expect(active).toMatchObject({ status: "active", current_period: { index: 1, start: trialEnd } });
    expect(paymentsOf(id)).toContainEqual([1, "19.90", "SALE"]);
    expect((await eventTypesOf(stack(), id)).subscription).toEqual([
      "subscription.created",
      "subscription.trial_started",
      "subscription.activated",
      "subscription.updated",
    ]);
  });

  it("goes past_due when the card is refused at the trial's end", async () => {
    const trial = view.parse((await trialSignUp({ trial_days: 7 }, "4000000000000341")).json);
    await renewAfter(stack(), trial.trial_end);
    expect(view.parse((await call("GET", `/v1/subscriptions/${trial.subscription_id}`)).json).status).toBe(
      "past_due",
    );
  });

  it("refuses a trial out of range, naming the field", async () => {
    const bad = await trialSignUp({ trial_days: 0 });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("plan.trial_days");
  });
});
