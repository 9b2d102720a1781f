import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingEvent } from "../../../functions/core/events";
import { updatePaymentMethod } from "../../../functions/core/payment-method";
import type { BillingRepository } from "../../../functions/core/ports";
import { pauseSubscription } from "../../../functions/core/subscription-changes";
import { BillingStack } from "../../../local/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/merchant-config";
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
