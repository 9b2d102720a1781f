import { describe, expect, it } from "vitest";
import {
  chargeIdParams,
  createChargeBody,
  createCheckoutBody,
  createRefundBody,
  createSubscriptionBody,
  idempotencyKey,
  localClockBody,
  subscriptionIdParams,
} from "../../../functions/api/merchant-api-schemas";
import {
  chargeView as chargeViewSchema,
  refundView as refundViewSchema,
  subscriptionView as subscriptionViewSchema,
} from "../../../functions/api/merchant-api-views";
import { chargeView, refundView, subscriptionView } from "../../../functions/api/views";
import type { ChargeAttempt, RefundRecord, Subscription } from "../../../functions/core/base/model";

const customer = { name: "Ada", email: "ada@example.com" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };

describe("request schemas", () => {
  it("accept the bodies of the documented merchant API", () => {
    expect(createCheckoutBody.safeParse({ customer, plan, billing: "token" }).success).toBe(true);
    expect(
      createCheckoutBody.safeParse({
        customer: { ...customer, phone: "+1 555 0100" },
        plan,
        billing: "recurring",
        return_url: "https://merchant.example/done",
        lang: "EN",
      }).success,
    ).toBe(true);
    expect(
      createSubscriptionBody.safeParse({
        customer,
        plan,
        card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
      }).success,
    ).toBe(true);
    for (const interval_months of [12, 36])
      expect(
        createCheckoutBody.safeParse({ customer, plan: { ...plan, interval_months }, billing: "token" })
          .success,
      ).toBe(true);
    expect(
      createCheckoutBody.safeParse({ customer, plan: { ...plan, interval_months: 10 }, billing: "recurring" })
        .success,
    ).toBe(true);
    expect(createChargeBody.safeParse({}).success).toBe(true);
    expect(createRefundBody.safeParse({ amount: "5", reason: "goodwill" }).success).toBe(true);
    expect(localClockBody.safeParse({ advance: "P31D" }).success).toBe(true);
    expect(localClockBody.safeParse({ advance: "PT1H30M" }).success).toBe(true);
  });

  it.each([
    ["a zero amount", createChargeBody, { amount: "0" }],
    ["three decimals", createChargeBody, { amount: "1.999" }],
    ["a number amount", createChargeBody, { amount: 5 }],
    ["a refund without reason", createRefundBody, { amount: "5" }],
    ["an unknown billing mode", createCheckoutBody, { customer, plan, billing: "monthly" }],
    [
      "a plan of 37 months",
      createCheckoutBody,
      { customer, plan: { ...plan, interval_months: 37 }, billing: "token" },
    ],
    [
      "a gateway-managed plan of 11 months",
      createCheckoutBody,
      { customer, plan: { ...plan, interval_months: 11 }, billing: "recurring" },
    ],
    [
      "a gateway-managed sign-up of 12 months",
      createSubscriptionBody,
      {
        customer,
        plan: { ...plan, interval_months: 12 },
        billing: "recurring",
        card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
      },
    ],
    [
      "a return_url that is not http(s)",
      createCheckoutBody,
      { customer, plan, billing: "token", return_url: "ftp://x" },
    ],
    [
      "plan.start_date (not supported yet)",
      createCheckoutBody,
      { customer, plan: { ...plan, start_date: "2027-01-01" }, billing: "token" },
    ],
    ["an empty duration", localClockBody, { advance: "P" }],
  ])("refuse %s", (_, schema, input) => {
    expect(schema.safeParse(input).success).toBe(false);
  });

  it("path parameters and the Idempotency-Key header", () => {
    expect(subscriptionIdParams.safeParse({ id: "sub_0123456789abcdef" }).success).toBe(true);
    expect(subscriptionIdParams.safeParse({ id: "sub-1" }).success).toBe(false);
    expect(chargeIdParams.safeParse({ id: "sub_0123456789abcdef-12-0" }).success).toBe(true);
    expect(chargeIdParams.safeParse({ id: "sub_0123456789abcdef" }).success).toBe(false);
    expect(idempotencyKey.safeParse("3f1c-9a").success).toBe(true);
    expect(idempotencyKey.safeParse("with space").success).toBe(false);
    expect(idempotencyKey.safeParse("").success).toBe(false);
  });
});

const AT = "2027-01-31T09:00:00.000Z";
const subscription: Subscription = {
  subscription_id: "sub_0123456789abcdef",
  status: "past_due",
  status_reason: "payment_declined",
  billing_mode: "token",
  customer,
  plan,
  anchor_at: AT,
  period: 2,
  attempt: 1,
  next_charge_at: "2027-03-29T09:00:00.000Z",
  token_id: "TK-SECRET-TOKEN",
  card: { first4: "4111", last4: "1111" },
  dunning: { step: 1, reason: "declined", rescode: "DC51", since: "2027-03-28T09:00:00.000Z" },
  created_at: AT,
  updated_at: AT,
};

describe("views", () => {
  it("a subscription shows its last paid period and masked card, never the token or the customer", () => {
    const view = subscriptionView(subscription);
    expect(subscriptionViewSchema.parse(view)).toEqual(view);
    expect(view).toMatchObject({
      status: "past_due",
      billing: "token",
      current_period: { index: 1, start: "2027-02-28T09:00:00.000Z", end: "2027-03-31T09:00:00.000Z" },
      card: { first4: "4111", last4: "1111" },
      dunning: { step: 1, rescode: "DC51" },
    });
    const text = JSON.stringify(view);
    expect(text).not.toContain("TK-SECRET-TOKEN");
    expect(text).not.toContain("ada@example.com");
  });

  it("a pending subscription has no period, card or due date yet", () => {
    const {
      token_id: _t,
      card: _c,
      next_charge_at: _n,
      dunning: _d,
      status_reason: _s,
      ...rest
    } = subscription;
    const view = subscriptionView({ ...rest, status: "pending", period: 0, attempt: 0 });
    expect(subscriptionViewSchema.parse(view)).toEqual(view);
    expect(view).toMatchObject({ current_period: null, card: null, next_charge_at: null });
    expect("dunning" in view).toBe(false);
  });

  it("a charge's id is its attempt key; a refund points at it", () => {
    const attempt: ChargeAttempt = {
      subscription_id: subscription.subscription_id,
      period: 3,
      attempt: 0,
      order_id: "GW-ORDER-77",
      amount: "19.90",
      currency: "USD",
      status: "succeeded",
      transaction_id: "T".repeat(24),
      lease_until: AT,
      created_at: AT,
      updated_at: AT,
    };
    const view = chargeView(attempt);
    expect(chargeViewSchema.parse(view)).toEqual(view);
    expect(view).toMatchObject({
      charge_id: "sub_0123456789abcdef-3-0",
      order_id: "GW-ORDER-77",
      refunded_amount: "0.00",
    });
    expect(chargeIdParams.safeParse({ id: view.charge_id }).success).toBe(true);

    const refund: RefundRecord = {
      refund_id: "rf_1",
      subscription_id: subscription.subscription_id,
      order_id: "GW-ORDER-77",
      period: 3,
      attempt: 0,
      amount: "5",
      currency: "USD",
      reason: "goodwill",
      status: "succeeded",
      refund_transaction_id: "R".repeat(24),
      created_at: AT,
      updated_at: AT,
    };
    const shown = refundView(refund);
    expect(refundViewSchema.parse(shown)).toEqual(shown);
    expect(shown.charge_id).toBe(view.charge_id);
  });

  it("a view with an undeclared field is refused (strict)", () => {
    expect(
      subscriptionViewSchema.safeParse({ ...subscriptionView(subscription), token_id: "x" }).success,
    ).toBe(false);
  });
});
