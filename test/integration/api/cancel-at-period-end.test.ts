import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TEST_MERCHANT } from "../../../sandbox/merchant-config";
import { eventTypesOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Cancel at the end of the paid period through the merchant API (README, Subscription lifecycle): access runs until
// then, the charge run charges nothing more and ends the subscription, and an update undoes it before then.

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
