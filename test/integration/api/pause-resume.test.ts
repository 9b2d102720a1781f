import { describe, expect, it } from "vitest";
import { z } from "zod";
import { eventsOf, eventTypesOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Pause and resume through the merchant API (README, Subscription lifecycle): nothing is charged while paused; a
// resume after the paid period ended re-anchors the schedule at the resume instant and charges at once, one before
// it keeps the schedule; a pause until a date is resumed by the charge run.

const {
  call,
  stack,
  signUp: signUpAnswer,
  salesOf,
} = merchantApiOnStack("mk_test_0f1e2d3c4b5a69788796a5b4c3d2e1f0");

const MONTH_MS = 31 * 86_400_000;

const view = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  next_charge_at: z.string().nullable(),
  resume_at: z.string().nullable(),
  current_period: z.object({ index: z.number(), start: z.string(), end: z.string() }).nullable(),
});

const getView = async (id: string) => view.parse((await call("GET", `/v1/subscriptions/${id}`)).json);

const signUp = async (billing?: "token" | "recurring", cardNumber?: string) =>
  view.parse(await signUpAnswer(billing, cardNumber));

describe("pause and resume", () => {
  it("charges nothing while paused; a resume after the paid period re-anchors the schedule and charges at once", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const paused = await call("POST", `/v1/subscriptions/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(view.parse(paused.json)).toMatchObject({
      status: "paused",
      next_charge_at: null,
      resume_at: null,
    });

    // Two renewal dates pass: nothing is charged.
    await renewAfter(stack(), signedUp.next_charge_at);
    await renewAfter(stack(), new Date(Date.parse(signedUp.next_charge_at ?? "") + MONTH_MS).toISOString());
    expect(salesOf(id)).toBe(1);
    expect((await getView(id)).status).toBe("paused");

    const resumedAt = stack().clock.now().toISOString();
    const resumed = await call("POST", `/v1/subscriptions/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(view.parse(resumed.json)).toMatchObject({ status: "active", next_charge_at: resumedAt });
    await stack().drainChargeQueue();
    expect(salesOf(id)).toBe(2);
    const after = await getView(id);
    expect(after.current_period).toMatchObject({ index: 1, start: resumedAt });
    expect(after.next_charge_at).toBe(after.current_period?.end);

    // Resuming again changes nothing.
    expect(view.parse((await call("POST", `/v1/subscriptions/${id}/resume`)).json).next_charge_at).toBe(
      after.next_charge_at,
    );
    expect((await eventTypesOf(stack(), id)).subscription).toEqual([
      "subscription.created",
      "subscription.activated",
      "subscription.paused",
      "subscription.resumed",
      "subscription.updated",
    ]);
    const resumedEvent = (await eventsOf(stack(), id)).find((event) => event.type === "subscription.resumed");
    expect(resumedEvent).toMatchObject({ next_charge_at: resumedAt });
  });

  it("keeps the schedule when resumed before the paid period ends", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    await call("POST", `/v1/subscriptions/${id}/pause`);
    const resumed = await call("POST", `/v1/subscriptions/${id}/resume`);
    expect(view.parse(resumed.json)).toMatchObject({
      status: "active",
      next_charge_at: signedUp.next_charge_at,
    });
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toBe(2);
  });

  it("resumes by itself at resume_at: the charge run resumes and charges it", async () => {
    const signedUp = await signUp();
    const id = signedUp.subscription_id;
    const resumeAt = new Date(Date.parse(signedUp.next_charge_at ?? "") + 10 * 86_400_000).toISOString();
    const paused = await call("POST", `/v1/subscriptions/${id}/pause`, { body: { resume_at: resumeAt } });
    expect(view.parse(paused.json)).toMatchObject({ status: "paused", resume_at: resumeAt });
    await renewAfter(stack(), signedUp.next_charge_at);
    expect(salesOf(id)).toBe(1);

    await renewAfter(stack(), resumeAt);
    const after = await getView(id);
    expect(after).toMatchObject({ status: "active", resume_at: null, current_period: { index: 1 } });
    expect(salesOf(id)).toBe(2);
    const pausedEvent = (await eventsOf(stack(), id)).find((event) => event.type === "subscription.paused");
    expect(pausedEvent).toMatchObject({ resume_at: resumeAt });
  });

  it("refuses, changing nothing, what cannot be paused; a paused subscription can be canceled", async () => {
    const recurring = await signUp("recurring");
    const refused = await call("POST", `/v1/subscriptions/${recurring.subscription_id}/pause`);
    expect(refused.status).toBe(409);
    expect(errorOf(refused).message).toContain("gateway-managed recurring plan cannot be paused");
    expect((await getView(recurring.subscription_id)).status).toBe("active");

    const token = await signUp();
    const id = token.subscription_id;
    const past = await call("POST", `/v1/subscriptions/${id}/pause`, {
      body: { resume_at: "2000-01-01T00:00:00.000Z" },
    });
    expect(past.status).toBe(409);
    const bad = await call("POST", `/v1/subscriptions/${id}/pause`, { body: { resume_at: "tomorrow" } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("resume_at");
    expect((await getView(id)).status).toBe("active");

    await call("POST", `/v1/subscriptions/${id}/pause`);
    const canceled = await call("DELETE", `/v1/subscriptions/${id}`);
    expect(view.parse(canceled.json)).toMatchObject({ status: "canceled", next_charge_at: null });
    expect((await call("POST", `/v1/subscriptions/${id}/resume`)).status).toBe(409);
  });
});
