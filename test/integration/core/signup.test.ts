import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingRepository } from "../../../functions/core/ports";
import { type SignupRequest, signUpWithCard } from "../../../functions/core/signup";
import { BillingStack } from "../../../local/billing-stack";

/*
 * A sign-up retried with the same idempotency key never pays twice: the subscription id is derived from the key, so
 * the retry meets its first try — even when the first try crashed after the gateway charged the card.
 */

let stack: BillingStack;

beforeAll(async () => {
  stack = await BillingStack.start({ start: new Date("2027-09-01T08:00:00.000Z") });
});
afterAll(() => stack.close());

const request = (requestKey: string, number = "4111111111111111"): SignupRequest => ({
  customer: { name: "Katherine Johnson", email: "katherine@example.com" },
  plan: { amount: "12.00", currency: "USD", interval_months: 1 },
  billing: "token",
  card: { number, expiry: "203012", cvc: "321" },
  request_key: requestKey,
});

function salesOf(subscriptionId: string): number {
  return [...stack.sandbox.state.payments.payments()].filter(
    (payment) => payment.status === "SALE" && payment.orderId.startsWith(`${subscriptionId}-`),
  ).length;
}

describe("sign-up retries", () => {
  it("answers a completed sign-up again without a second payment", async () => {
    const first = await signUpWithCard(request("key-completed"), stack.services);
    const again = await signUpWithCard(request("key-completed"), stack.services);
    expect(first.kind).toBe("active");
    expect(again).toEqual(first);
    if (first.kind === "active") expect(salesOf(first.subscription.subscription_id)).toBe(1);
  });

  it("a sign-up whose record fails after the payment is pending, never an error; a retry is not paid again; the attempt sweep settles it", async () => {
    const crashing: BillingRepository = {
      ...stack.services.repository,
      updateAttempt: async () => {
        throw new Error("the table failed after the gateway charged");
      },
    };
    const first = await signUpWithCard(request("key-crashed"), { ...stack.services, repository: crashing });
    expect(first.kind).toBe("pending");
    const retry = await signUpWithCard(request("key-crashed"), stack.services);
    expect(retry.kind).toBe("pending");
    const subscriptionId = retry.kind === "pending" ? retry.subscription.subscription_id : "";
    expect(salesOf(subscriptionId)).toBe(1);

    await stack.clock.advance(stack.services.policy.inflightWindowMs + 1_000);
    expect((await stack.attemptSweep()).resolved).toBe(1);
    const settled = await stack.services.repository.getSubscription(subscriptionId);
    expect(settled).toMatchObject({ period: 1 });
    expect(salesOf(subscriptionId)).toBe(1);
  });

  it("a refused sign-up stays refused for its key; another key is a new sign-up", async () => {
    const refused = await signUpWithCard(request("key-refused", "4000000000009995"), stack.services);
    expect(refused.kind).toBe("refused");
    expect((await signUpWithCard(request("key-refused", "4000000000009995"), stack.services)).kind).toBe(
      "refused",
    );
    expect((await signUpWithCard(request("key-new"), stack.services)).kind).toBe("active");
  });
});
