import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Receipts through the merchant API as deployed: the gateway's receipt page of a succeeded charge, asked with the
// customer's e-mail; none for a charge that moved no money.

const { call } = merchantApiOnStack("mk_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0");

const charges = z.object({ charges: z.array(z.looseObject({ charge_id: z.string(), status: z.string() })) });

async function signUp(number: string) {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Grace Hopper", email: "grace@example.com" },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: { number, expiry: "203012", cvc: "123" },
    },
  });
  expect(answer.status).toBe(201);
  return z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;
}

describe("receipts", () => {
  it("answers the gateway's receipt URL of a succeeded charge", async () => {
    const id = await signUp("4111111111111111");
    const [paid] = charges.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
    const answer = await call("GET", `/v1/charges/${paid?.charge_id}/receipt`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      charge_id: paid?.charge_id,
      receipt_url: expect.stringMatching(/^https?:\/\//),
    });
  });

  it("has none for a declined charge, and names an unknown one", async () => {
    // Approves the sign-up, declines every REBILL: the ad hoc charge is declined.
    const id = await signUp("4000000000000341");
    expect((await call("POST", `/v1/subscriptions/${id}/charges`, { body: { amount: "5.00" } })).status).toBe(
      422,
    );
    const declined = charges
      .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json)
      .charges.find((charge) => charge.status === "declined");
    const answer = await call("GET", `/v1/charges/${declined?.charge_id}/receipt`);
    expect(answer.status).toBe(409);
    expect(errorOf(answer)).toMatchObject({
      code: "no_receipt",
      message: "a declined charge has no receipt",
    });

    expect((await call("GET", `/v1/charges/${id}-9-0/receipt`)).status).toBe(404);
    const bad = await call("GET", "/v1/charges/not%20a%20charge/receipt");
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("id");
  });
});
