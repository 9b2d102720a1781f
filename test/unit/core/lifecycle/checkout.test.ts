import { describe, expect, it } from "vitest";
import { createPaymentGateway } from "../../../../functions/adapters/outside/payment-gateway";
import { createRandomIds } from "../../../../functions/adapters/outside/random-ids";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import { success } from "../../../../functions/core/base/outcome";
import {
  type CheckoutDeps,
  completeCheckout,
  expireCheckout,
  reopenCheckout,
  startCheckout,
} from "../../../../functions/core/lifecycle/checkout";
import type { Coupon, CouponStore } from "../../../../functions/core/ports/coupon-store";
import type { PriceStore } from "../../../../functions/core/ports/price-store";
import type { PaymentClient } from "../../../../functions/gateway/payment-client";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { partialPort } from "../../../support/partial-port";

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
    checkoutReturnUrl: (subscriptionId) => `https://billing.example/pay/${subscriptionId}/return`,
    // These checkouts redeem no coupon.
    coupons: partialPort<CouponStore>({}),
    prices: partialPort<PriceStore>({}),
  };
  return { repository, deps };
}

/** A pending token checkout (hosted unless it names a return_url): its order and everything stored of it. */
async function pendingCheckout(returnUrl?: string) {
  const { repository, deps } = checkoutServices();
  const start = await startCheckout(
    {
      customer: { name: "Window Customer", email: "window@example.com" },
      plan: { amount: "29.00", currency: "USD", interval_months: 1 },
      billing: "token",
      ...(returnUrl === undefined ? {} : { return_url: returnUrl }),
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
  return { deps, order_id, subscription_id, stored };
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

describe("a hosted checkout's next try", () => {
  const declined = (orderId: string) =>
    windowResult(orderId, { rescode: "DC05", resmsg: "Do not honor", errcode: "GENERIC_DECLINE" });

  it("a refused payment keeps it pending; concurrent tries open one window, on the next attempt", async () => {
    const { deps, order_id, subscription_id, stored } = await pendingCheckout();
    expect(await completeCheckout(declined(order_id), deps)).toMatchObject({ kind: "refused", code: "DC05" });
    expect((await stored()).subscription).toMatchObject({
      status: "pending",
      attempt: 1,
      status_reason: "checkout_declined",
    });
    let readies = 0;
    const counted: CheckoutDeps = {
      ...deps,
      gateway: createPaymentGateway(
        {
          ...vouchingPayments,
          ready: async () => {
            readies += 1;
            return vouchingPayments.ready();
          },
        } as unknown as PaymentClient,
        { lang: "EN" },
      ),
    };
    const tries = await Promise.all([
      reopenCheckout(subscription_id, counted),
      reopenCheckout(subscription_id, counted),
    ]);
    expect(tries.map((entry) => entry.kind).sort()).toEqual(["open", "opened"]);
    expect(readies).toBe(1);
    const { attempts } = await stored();
    expect(attempts).toMatchObject([
      { attempt: 0, status: "declined", rescode: "DC05", errcode: "GENERIC_DECLINE" },
      {
        attempt: 1,
        status: "pending",
        order_id: `${subscription_id}-0-1`,
        window: { fgkey: "F".repeat(64) },
      },
    ]);
    expect(await reopenCheckout(subscription_id, counted)).toEqual({ kind: "open" });
    expect(await completeCheckout(windowResult(`${subscription_id}-0-1`), deps)).toMatchObject({
      kind: "paid",
    });
    expect(await reopenCheckout(subscription_id, counted)).toEqual({ kind: "closed" });
    expect(readies).toBe(1);
  });

  it("a checkout returning to the merchant's page is canceled when refused and never tried again here", async () => {
    const { deps, order_id, subscription_id, stored } = await pendingCheckout(
      "https://merchant.example/back",
    );
    await completeCheckout(declined(order_id), deps);
    expect((await stored()).subscription).toMatchObject({ status: "canceled" });
    expect(await reopenCheckout(subscription_id, deps)).toEqual({ kind: "closed" });
    expect(await reopenCheckout("sub_unknown", deps)).toEqual({ kind: "closed" });
  });
});

describe("a checkout past its end", () => {
  it("waits for its try's line to be settled, then is closed once; a try is no longer offered", async () => {
    const { deps, order_id, subscription_id, stored } = await pendingCheckout();
    const end = new Date(NOW.getTime() + 24 * 3_600_000);
    const { subscription, attempts } = await stored();
    expect(subscription?.checkout_expires_at).toBe(end.toISOString());
    expect(attempts).toMatchObject([{ order_id, status: "pending", lease_until: end.toISOString() }]);
    const at = (instant: Date) => ({ ...deps, clock: { now: () => instant } });

    expect(await expireCheckout(subscription_id, at(new Date(end.getTime() - 1)))).toBe("settled");
    // Its line is open: retrieve (the sweep's attempt step) must say first whether the gateway holds a sale.
    expect(await expireCheckout(subscription_id, at(end))).toBe("deferred");
    const [line] = attempts;
    if (line === undefined) throw new Error("no line");
    await deps.repository.updateAttempt(line, {
      expect: { status: "pending", lease_until: line.lease_until },
      set: { status: "voided", updated_at: end.toISOString() },
      remove: ["lease_until"],
    });
    expect(await expireCheckout(subscription_id, at(end))).toBe("expired");
    expect(await expireCheckout(subscription_id, at(end))).toBe("settled");
    const after = await stored();
    expect(after.subscription).toMatchObject({ status: "canceled", status_reason: "checkout_expired" });
    expect(after.events.map((event) => event.type)).toEqual(["subscription.created", "checkout.expired"]);
    expect(await reopenCheckout(subscription_id, at(end))).toEqual({ kind: "closed" });
  });

  it("gives back the coupon it redeemed once closed, so a capped coupon's turn goes to a customer who pays", async () => {
    const released: string[] = [];
    const capped: Coupon = {
      coupon_id: "co_capped",
      percent_off_bp: 1000,
      duration: "forever",
      max_redemptions: 5,
      times_redeemed: 0,
      created_at: NOW.toISOString(),
    };
    const { repository, deps: plain } = checkoutServices();
    const coupons = partialPort<CouponStore>({
      getCoupon: async () => capped,
      redeem: async () => "redeemed",
      release: async (couponId, subscriptionId) => {
        released.push(`${couponId} ${subscriptionId}`);
        return true;
      },
    });
    const deps = { ...plain, coupons };
    const start = await startCheckout(
      {
        customer: { name: "Window Customer", email: "window@example.com" },
        plan: { amount: "29.00", currency: "USD", interval_months: 1 },
        billing: "token",
        coupon: capped.coupon_id,
      },
      deps,
    );
    if (start.kind !== "started") throw new Error(`checkout not started: ${JSON.stringify(start)}`);
    const { subscription_id } = start.checkout;
    const [line] = await repository.listAttempts(subscription_id);
    if (line === undefined) throw new Error("no line");
    const end = new Date(NOW.getTime() + 24 * 3_600_000);
    await repository.updateAttempt(line, {
      expect: { status: "pending", lease_until: line.lease_until },
      set: { status: "voided", updated_at: end.toISOString() },
      remove: ["lease_until"],
    });
    expect(released).toEqual([]);
    expect(await expireCheckout(subscription_id, { ...deps, clock: { now: () => end } })).toBe("expired");
    expect(released).toEqual([`co_capped ${subscription_id}`]);
  });
});
