import { describe, expect, it } from "vitest";
import { createPaymentGateway } from "../../../functions/adapters/payment-gateway";
import { createRandomIds } from "../../../functions/adapters/random-ids";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/charge-policy";
import { type CheckoutDeps, completeCheckout, startCheckout } from "../../../functions/core/checkout";
import { success } from "../../../functions/core/outcome";
import type { PaymentClient } from "../../../functions/gateway/payment-client";
import { MemoryBillingRepository } from "../../support/memory-billing-repository";

// Window results the sandbox never sends, as the payment gateway adapter reads them once the gateway has vouched
// for them (verify answers 0000 for any query here): the real gateway sends no status, so only an approved PAYMENT
// window without a virtual account is a sale. Whatever is not a sale changes nothing.

const NOW = new Date("2027-03-15T10:00:00.000Z");

/** The payment API as the adapter calls it around a window: ready opens one, verify vouches for any query. */
const vouchingPayments = {
  ready: async () => {
    const fgkey = "F".repeat(64);
    const launch = { sdk_url: "https://gateway.example/v1/javascriptSDK.js", request_pay: { fgkey } };
    return success({ rescode: "0000", resmsg: "Success", fgkey, launch });
  },
  verify: async () => success({ rescode: "0000", resmsg: "Success" }),
} satisfies Partial<PaymentClient>;

function checkoutServices() {
  const repository = new MemoryBillingRepository();
  const deps: CheckoutDeps = {
    repository,
    // A checkout and its result make only the window calls above.
    gateway: createPaymentGateway(vouchingPayments as unknown as PaymentClient, { lang: "EN" }),
    ids: createRandomIds(),
    clock: { now: () => NOW },
    policy: DEFAULT_CHARGE_POLICY,
    recurringNotifyUrl: ({ subscription_id }) => `https://billing.example/recurring?id=${subscription_id}`,
    statusUrl: "https://billing.example/webhooks/status",
    defaultReturnUrl: "https://merchant.example/thanks",
  };
  return { repository, deps };
}

/** A pending token checkout: its order and everything stored of it (to compare after a result). */
async function pendingCheckout() {
  const { repository, deps } = checkoutServices();
  const start = await startCheckout(
    {
      customer: { name: "Window Customer", email: "window@example.com" },
      plan: { amount: "29.00", currency: "USD", interval_months: 1 },
      billing: "token",
    },
    deps,
  );
  if (start.kind !== "started") throw new Error(`checkout not started: ${JSON.stringify(start)}`);
  const { order_id, subscription_id } = start.checkout;
  const stored = async () => ({
    subscription: await repository.getSubscription(subscription_id),
    attempts: await repository.listAttempts(subscription_id),
    events: [...repository.written],
  });
  return { deps, order_id, stored };
}

/** An approved PAYMENT window's result in the real gateway's form (no status), with `fields` changed. */
const windowResult = (orderId: string, fields: Record<string, string> = {}) =>
  new URLSearchParams({
    ver: "230",
    mid: "SBX00001",
    transaction_type: "PAYMENT",
    order_id: orderId,
    currency: "USD",
    amount: "29.00",
    rescode: "0000",
    resmsg: "Success",
    transaction_id: "SBXT00000000000000000001",
    token_id: "SBXTK0000000000000000001",
    card_number1: "4111",
    card_number4: "1111",
    fgkey: "A".repeat(64),
    ...fields,
  }).toString();

describe("a verified window result without a status", () => {
  it("is the sale when an approved PAYMENT window issued no virtual account", async () => {
    const { deps, order_id } = await pendingCheckout();
    expect(await completeCheckout(windowResult(order_id), deps)).toMatchObject({
      kind: "paid",
      subscription: { status: "active", period: 1, card: { first4: "4111", last4: "1111" } },
    });
  });

  it("is not read as a sale when it issued a virtual account: the checkout waits for the deposit", async () => {
    const { deps, order_id, stored } = await pendingCheckout();
    const before = await stored();
    const query = windowResult(order_id, { virtual_account_number: "99012345678901" });

    expect(await completeCheckout(query, deps)).toMatchObject({
      kind: "awaiting_deposit",
      subscription: { status: "pending" },
    });
    expect(await stored()).toEqual(before);
  });

  it("is not read as a sale when it is an approved PAYER_AUTH result", async () => {
    const { deps, order_id, stored } = await pendingCheckout();
    const before = await stored();
    const query = windowResult(order_id, { transaction_type: "PAYER_AUTH" });

    expect(await completeCheckout(query, deps)).toEqual({
      kind: "rejected",
      reason: "unexpected window status (none, PAYER_AUTH)",
    });
    expect(await stored()).toEqual(before);
  });
});
