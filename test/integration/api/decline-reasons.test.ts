import { describe, expect, it } from "vitest";
import { z } from "zod";
import { chargeListView } from "../../../functions/api/merchant-api-views";
import { sandboxControl } from "../../../local/clients/sandbox-controls";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Every declined charge says why (README, Merchant API: decline reasons): the gateway's rescode and errcode, the
// reason in the customer's terms and the next step, on the charge's view, on its charge.failed event and on the
// dunning of the subscription it left past_due.

const DECLINES_ON_RENEWAL = "4000000000000341";

const { stack, call } = merchantApiOnStack("mk_decline_reasons_0f3a9c2e7b1d4f6a8c0e");

async function signUp(cardNumber: string) {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Decline Customer", email: "decline@example.com" },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: { number: cardNumber, expiry: "203012", cvc: "123" },
    },
  });
  expect(answer.status, answer.text).toBe(201);
  return z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;
}

/** The period-1 renewal, a month on. */
async function renew() {
  await stack().clock.advance("P31D");
  await stack().chargeRun();
  await stack().drainChargeQueue();
}

async function renewalOf(id: string) {
  const { charges } = chargeListView.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json);
  return charges.find((charge) => charge.period === 1);
}

const failedEvent = async (id: string) =>
  (await stack().events()).find((event) => event.type === "charge.failed" && event.subscription_id === id);

describe("decline reasons", () => {
  it("an issuer's decline: retry later, on the charge and its event", async () => {
    const id = await signUp(DECLINES_ON_RENEWAL);
    await renew();
    const decline = {
      rescode: "DC05",
      errcode: "GENERIC_DECLINE",
      reason: "card_declined",
      message: "The card issuer declined the payment.",
      next_step: "retry_later",
    };
    expect(await renewalOf(id)).toMatchObject({ status: "declined", decline });
    expect(await failedEvent(id)).toMatchObject({
      rescode: "DC05",
      errcode: "GENERIC_DECLINE",
      decline_reason: "card_declined",
      next_step: "retry_later",
    });
    // The past_due subscription says what its dunning must overcome.
    expect((await call("GET", `/v1/subscriptions/${id}`)).json).toMatchObject({
      status: "past_due",
      dunning: { step: 1, rescode: "DC05", decline_reason: "card_declined", next_step: "retry_later" },
    });
  });

  it("an expired token: a new card is needed", async () => {
    const id = await signUp("4111111111111111");
    const tokenId = (await stack().services.repository.getSubscription(id))?.token_id ?? "";
    await sandboxControl(stack().sandbox.url, `/sandbox/tokens/${tokenId}/expire`);
    await renew();
    expect(await renewalOf(id)).toMatchObject({
      status: "declined",
      decline: { rescode: "TK01", reason: "expired_card", next_step: "new_card" },
    });
    expect(await failedEvent(id)).toMatchObject({ decline_reason: "expired_card", next_step: "new_card" });
  });
});
