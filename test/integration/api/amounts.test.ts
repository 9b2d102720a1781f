import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Amounts are checked per currency before anything is written or sent (README, Merchant API: amounts): the currency's
// minor unit from ICU (KRW and JPY have none), the merchant's currencies, the gateway's limit of 99999999.99. Each is a
// 400 naming the field, and the gateway never hears of it.

const { call, stack } = merchantApiOnStack("mk_test_amounts_0123456789abcdef01234");

const customer = { name: "Kim Minji", email: "minji@example.com" };
const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };
const signUpIn = (amount: string, currency: string) =>
  call("POST", "/v1/subscriptions", {
    body: { customer, plan: { amount, currency, interval_months: 1 }, card },
  });
const checkoutIn = (amount: string, currency: string) =>
  call("POST", "/v1/checkouts", {
    body: { customer, plan: { amount, currency, interval_months: 1 }, billing: "token" },
  });

/** Runs `request`, expects a 400 naming `field` that does not repeat the value, and that nothing reached the gateway. */
async function expectRefused(
  request: () => ReturnType<typeof call>,
  field: string,
  value: string,
): Promise<void> {
  const before = stack().sandbox.state.revision;
  const answer = await request();
  expect(answer.status).toBe(400);
  expect(errorOf(answer)).toMatchObject({ code: "invalid_request", field });
  expect(answer.text).not.toContain(value);
  expect(stack().sandbox.state.revision).toBe(before);
}

const subscriptionView = z.looseObject({ subscription_id: z.string() });
const chargesView = z.object({ charges: z.array(z.object({ charge_id: z.string(), status: z.string() })) });

describe("amounts per currency", () => {
  it("refuses a sign-up whose amount its currency cannot carry, or a currency the merchant does not bill in", async () => {
    await expectRefused(() => signUpIn("1000.55", "KRW"), "plan.amount", "1000.55");
    await expectRefused(() => signUpIn("0.01", "JPY"), "plan.amount", "0.01");
    await expectRefused(() => signUpIn("19.905", "USD"), "plan.amount", "19.905");
    await expectRefused(() => signUpIn("123456789012345678901234567890", "USD"), "plan.amount", "1234567890");
    await expectRefused(() => signUpIn("100000000", "KRW"), "plan.amount", "100000000");
    await expectRefused(() => signUpIn("19.90", "ZZZ"), "plan.currency", "ZZZ");
    // An ISO currency outside the gateway's published ones (the default allow-list).
    await expectRefused(() => signUpIn("19.90", "CHF"), "plan.currency", "CHF");
    await expectRefused(() => checkoutIn("1000.5", "KRW"), "plan.amount", "1000.5");
    await expectRefused(() => checkoutIn("19.90", "CHF"), "plan.currency", "CHF");
  });

  it("bills whole won and the gateway's largest amount", async () => {
    expect((await signUpIn("9900", "KRW")).status).toBe(201);
    expect((await signUpIn("99999999.99", "USD")).status).toBe(201);
  });

  it("refuses an ad hoc charge, a plan change or a refund in decimals a won subscription cannot have", async () => {
    const signedUp = await signUpIn("9900", "KRW");
    expect(signedUp.status).toBe(201);
    const id = subscriptionView.parse(signedUp.json).subscription_id;
    const charges = chargesView.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
    const chargeId = charges[0]?.charge_id ?? "";

    await expectRefused(
      () => call("POST", `/v1/subscriptions/${id}/charges`, { body: { amount: "500.5" } }),
      "amount",
      "500.5",
    );
    await expectRefused(
      () =>
        call("POST", `/v1/subscriptions/${id}/adjust`, {
          body: { amount: "12000.5", proration: "charge_now" },
        }),
      "amount",
      "12000.5",
    );
    await expectRefused(
      () => call("POST", `/v1/charges/${chargeId}/refunds`, { body: { amount: "0.5", reason: "goodwill" } }),
      "amount",
      "0.5",
    );
    // Whole won go through.
    const refund = await call("POST", `/v1/charges/${chargeId}/refunds`, {
      body: { amount: "900", reason: "goodwill" },
    });
    expect(refund.status).toBe(201);
  });
});
