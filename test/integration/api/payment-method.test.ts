import { describe, expect, it } from "vitest";
import { z } from "zod";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { functionNamed } from "../../../functions/function-table";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { LOCAL_GATEWAY_TUNING } from "../../../local/stack/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { eventsOf, eventTypesOf, renewAfter, subscriptionOf } from "../../support/billing-scenarios";
import { answerOf, apiEvent, errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// A new card through the merchant API (README, Subscription lifecycle: payment_method_updated): a past_due
// subscription pays its overdue period with it and is active again; an active one has the card verified by the
// smallest charge, refunded at once. Either way the new token is charged from then on and the old one is deleted.

const { call, stack, signUp: signUpAnswer } = merchantApiOnStack("mk_test_7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d");

const GOOD_CARD = "5555555555554444";
const DECLINE_ON_REBILL = "4000000000000341";
const DECLINE = "4000000000000002";

const view = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  status_reason: z.string().optional(),
  current_period: z.object({ index: z.number() }).nullable(),
  next_charge_at: z.string().nullable(),
  card: z.object({ first4: z.string(), last4: z.string() }).nullable(),
});

const cardOf = (number: string) => ({ number, expiry: "203012", cvc: "123" });

const getView = async (id: string) => view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);
const stored = (id: string) => subscriptionOf(stack(), id);
const paymentsOf = (id: string) =>
  [...stack().sandbox.state.payments.payments()].filter(
    (payment) => attemptKeyOf(payment.orderId)?.subscription_id === id,
  );
const tokenStatus = (tokenId: string | undefined) =>
  stack().sandbox.state.tokens.find(TEST_MERCHANT.mid, tokenId ?? "")?.status;

const newCard = (id: string, cardNumber: string, idempotencyKey?: string) =>
  call("POST", `/v1/subscriptions/${id}/payment-method`, {
    body: { card: cardOf(cardNumber) },
    idempotencyKey,
  });

const signUp = async (billing?: "token" | "recurring", cardNumber?: string) =>
  view.parse(await signUpAnswer(billing, cardNumber));

describe("payment-method update", () => {
  it("recovers a past_due subscription: the overdue period is paid with the new card, which is charged from then on", async () => {
    const signedUp = await signUp("token", DECLINE_ON_REBILL);
    const id = signedUp.subscription_id;
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(await getView(id)).toMatchObject({
      status: "past_due",
      status_reason: "payment_declined",
      current_period: { index: 0 },
    });
    const oldToken = (await stored(id)).token_id;

    const recovered = await newCard(id, GOOD_CARD, "card-update-1");
    expect(recovered.status).toBe(200);
    const after = view.parse(recovered.json);
    expect(after).toMatchObject({
      status: "active",
      current_period: { index: 1 },
      card: { first4: "5555", last4: "4444" },
    });
    expect(after.status_reason).toBeUndefined();
    const subscription = await stored(id);
    expect(subscription.dunning).toBeUndefined();
    expect(subscription.token_id).not.toBe(oldToken);
    expect(tokenStatus(oldToken)).toBe("deleted");
    expect(tokenStatus(subscription.token_id)).toBe("active");
    // Period 1: the refused renewal, then the new card's payment on the next attempt (a new order_id).
    const ledger = await stack().services.repository.listAttempts(id);
    expect(ledger.filter((line) => line.period === 1).map((line) => [line.attempt, line.status])).toEqual([
      [0, "declined"],
      [1, "succeeded"],
    ]);

    // Repeating the request changes nothing and charges nothing.
    const sales = paymentsOf(id).length;
    const again = await newCard(id, GOOD_CARD, "card-update-1");
    expect(again.status).toBe(200);
    expect(paymentsOf(id)).toHaveLength(sales);

    // The next renewal charges the new token.
    await renewAfter(stack(), after.next_charge_at);
    expect(await getView(id)).toMatchObject({ status: "active", current_period: { index: 2 } });
    const types = await eventTypesOf(stack(), id);
    expect(types.subscription).toEqual([
      "subscription.created",
      "subscription.activated",
      "subscription.past_due",
      "subscription.reactivated",
      // The overdue period the new card paid, then the next renewal.
      "subscription.updated",
      "subscription.updated",
    ]);
    expect(types.charges).toEqual(
      expect.arrayContaining(["charge.failed", "charge.succeeded", "payment_method.updated"]),
    );
    const updated = (await eventsOf(stack(), id)).find((event) => event.type === "payment_method.updated");
    expect(updated).toMatchObject({ external_id: "acct_42", card: { first4: "5555", last4: "4444" } });
  });

  it("verifies an active subscription's new card by the smallest charge, refunded at once", async () => {
    const signedUp = await signUp("token", "4111111111111111");
    const id = signedUp.subscription_id;
    const oldToken = (await stored(id)).token_id;

    const updated = await newCard(id, GOOD_CARD);
    expect(updated.status).toBe(200);
    expect(view.parse(updated.json)).toMatchObject({
      status: "active",
      current_period: { index: 0 },
      next_charge_at: signedUp.next_charge_at,
      card: { last4: "4444" },
    });
    const verification = (await stack().services.repository.listAttempts(id)).find(
      (line) => line.period >= 5000,
    );
    expect(verification).toMatchObject({ amount: "0.01", status: "succeeded", refunded_amount: "0.01" });
    expect(await stack().services.repository.listRefunds(id)).toEqual([
      expect.objectContaining({ amount: "0.01", status: "succeeded", reason: "card verification" }),
    ]);
    expect(tokenStatus(oldToken)).toBe("deleted");

    await renewAfter(stack(), signedUp.next_charge_at);
    expect(await getView(id)).toMatchObject({ status: "active", current_period: { index: 1 } });
    const renewal = paymentsOf(id).find((payment) => attemptKeyOf(payment.orderId)?.period === 1);
    expect(renewal?.status).toBe("SALE");
  });

  it("keeps a past_due subscription as it was when the new card is declined: its next attempt gets a new order_id", async () => {
    const signedUp = await signUp("token", DECLINE_ON_REBILL);
    const id = signedUp.subscription_id;
    await renewAfter(stack(), signedUp.next_charge_at);
    const before = await stored(id);

    const declined = await newCard(id, DECLINE);
    expect(declined.status).toBe(422);
    const after = await stored(id);
    expect(after).toMatchObject({
      status: "past_due",
      token_id: before.token_id,
      attempt: before.attempt + 1,
      dunning: before.dunning,
      next_charge_at: before.next_charge_at,
    });
    expect(tokenStatus(before.token_id)).toBe("active");

    // A good card afterwards pays on the attempt after that.
    expect((await newCard(id, GOOD_CARD)).status).toBe(200);
    expect((await stored(id)).status).toBe("active");
  });

  it("refunds a verification whose outcome the attempt sweep settled, and keeps the card", async () => {
    const signedUp = await signUp("token", "4111111111111111");
    const id = signedUp.subscription_id;
    // The verification's answer is lost after the gateway took it: the outcome is unknown. The function's
    // gateway client gives up after 300 ms here (a deployed one waits 10 s); the authorizer is not the point.
    const impatient = new LambdaFunctions(
      stack().compose({ ...LOCAL_GATEWAY_TUNING, gatewayTimeoutMs: 300 }),
    );
    stack().sandbox.faults.configure({ routes: { "payments.payment": { timeoutAfterCommitRate: 1 } } });
    const pending = await impatient.invoker(functionNamed("update-payment-method"))(
      apiEvent("POST", `/v1/subscriptions/${id}/payment-method`, { body: { card: cardOf(GOOD_CARD) } }),
    );
    stack().sandbox.faults.configure({});
    expect(answerOf(pending)).toMatchObject({ status: 202, json: { card: signedUp.card } });

    await stack().clock.set(new Date(stack().clock.now().getTime() + 10 * 60_000));
    await stack().attemptSweep();
    const verification = (await stack().services.repository.listAttempts(id)).find(
      (line) => line.period >= 5000,
    );
    expect(verification).toMatchObject({
      status: "succeeded",
      verification: true,
      amount: "0.01",
      refunded_amount: "0.01",
    });
    expect((await stored(id)).card).toEqual(signedUp.card);
  });

  it("opens a payment window for the customer to type the new card in", async () => {
    const signedUp = await signUp("token", "4111111111111111");
    const id = signedUp.subscription_id;
    const opened = await call("POST", `/v1/subscriptions/${id}/payment-method`, {
      body: { window: { return_url: "https://merchant.example/card-updated" } },
    });
    expect(opened.status).toBe(201);
    const window = z
      .object({
        subscription_id: z.string(),
        order_id: z.string(),
        fgkey: z.string(),
        sdk_url: z.string(),
        request_pay: z.record(z.string(), z.unknown()),
      })
      .parse(opened.json);
    expect(window.subscription_id).toBe(id);
    const prepared = stack().sandbox.state.windows.find(window.fgkey)?.request;
    expect(prepared).toMatchObject({
      payment: { order_id: window.order_id, amount: "0.01" },
      url: { return_url: "https://merchant.example/card-updated" },
    });
    // What the page hands the SDK passes its fgkey check: exactly what ready was sent, and the fgkey.
    expect(window.request_pay).toEqual({ ...(prepared as object), fgkey: window.fgkey });
    expect(window.sdk_url).toBe(`${stack().sandbox.url}/v1/javascriptSDK.js`);
    // Nothing changes until the window's result arrives.
    expect((await stored(id)).card).toEqual(signedUp.card);

    for (const body of [{}, { card: cardOf(GOOD_CARD), window: {} }]) {
      const bad = await call("POST", `/v1/subscriptions/${id}/payment-method`, { body });
      expect(bad.status).toBe(400);
      expect(errorOf(bad).field).toBe("card");
    }
  });

  it("refuses, changing nothing, what it cannot do, and never echoes the card", async () => {
    const recurring = await signUp("recurring");
    const refused = await newCard(recurring.subscription_id, GOOD_CARD);
    expect(refused.status).toBe(409);
    expect(errorOf(refused).message).toContain("gateway-managed");

    const missing = await newCard("sub_does_not_exist", GOOD_CARD);
    expect(missing.status).toBe(404);

    const bad = await call("POST", `/v1/subscriptions/${recurring.subscription_id}/payment-method`, {
      body: { card: { number: "4111111111111112", expiry: "203012", cvc: "123" } },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("card.number");
    expect(JSON.stringify(bad.json)).not.toContain("4111111111111112");

    const canceled = await signUp("token", "4111111111111111");
    await call("DELETE", `/v1/subscriptions/${canceled.subscription_id}`);
    const late = await newCard(canceled.subscription_id, GOOD_CARD);
    expect(late.status).toBe(409);
    expect(paymentsOf(canceled.subscription_id)).toHaveLength(1);
  });
});
