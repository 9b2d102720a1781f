import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { idempotency, repository } from "../../../functions/composition/components";
import { isAdHocPeriod } from "../../../functions/core/base/charge-kind";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/base/charge-policy";
import type { BillingEvent } from "../../../functions/core/base/events";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { functionNamed } from "../../../functions/function-table";
import { planHistories } from "../../../local/audit/money-audit";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { BillingStack, LOCAL_GATEWAY_TUNING } from "../../../local/stack/billing-stack";
import { type AnyDecoration, decoratedComposition, decoration } from "../../../local/stack/crash-injection";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { type ApiCall, apiGateway, errorOf } from "../../support/merchant-api";
import { storeApiKeyDigest } from "../../support/merchant-api-handlers";

// Requests that money pays for — a sign-up, a new card, an upgrade, an ad hoc charge — when what follows the payment
// goes wrong (README, Exactly once): the same key retried, another write racing the one the payment made, the table
// failing after the gateway took the money, the answer lost. The customer pays once and the change applies once the
// money moved; nothing answers an error for money that moved.

const API_KEY = "mk_test_5e0b9a1c3d7f2e4a6b8c0d1e3f5a7b9c";

type MerchantApi = ReturnType<typeof merchantApi>;

let stack: BillingStack;
let apiKeySecretArn: string;
/** The merchant API as deployed, on a table and a store that work. */
let api: MerchantApi;

beforeAll(async () => {
  stack = await BillingStack.start();
  apiKeySecretArn = storeApiKeyDigest(stack, API_KEY);
  api = merchantApi();
});
afterAll(() => stack.close());

/**
 * API Gateway in front of the merchant API's functions, run as Lambda runs them over a composition of the stack whose
 * chosen components come out wrapped (`decorations`): a table that fails, a write that races, a store that forgot.
 */
function merchantApi(decorations: readonly AnyDecoration[] = []) {
  const composition = stack.compose(LOCAL_GATEWAY_TUNING, {
    MERCHANT_API_KEY_HASH_SECRET_ARN: apiKeySecretArn,
  });
  const functions = new LambdaFunctions(decoratedComposition(composition, decorations));
  const gateway = apiGateway({
    authorizer: functions.invoker(functionNamed("authorize-merchant")),
    handlers: {
      createSubscription: functions.invoker(functionNamed("create-subscription")),
      updatePaymentMethod: functions.invoker(functionNamed("update-payment-method")),
      adjustSubscription: functions.invoker(functionNamed("adjust-subscription")),
      pauseSubscription: functions.invoker(functionNamed("pause-subscription")),
      cancelSubscription: functions.invoker(functionNamed("cancel-subscription")),
      createCharge: functions.invoker(functionNamed("create-charge")),
    },
  });
  return (method: string, path: string, call: ApiCall = {}) =>
    gateway(method, path, { apiKey: API_KEY, ...call });
}

const view = z.looseObject({
  subscription_id: z.string(),
  status: z.string(),
  plan: z.looseObject({ amount: z.string() }),
  card: z.looseObject({ last4: z.string() }).nullable(),
});
const chargeView = z.looseObject({ status: z.string() });

const signupBody = (number = "4111111111111111") => ({
  customer: { name: "Katherine Johnson", email: "katherine@example.com" },
  plan: { amount: "19.90", currency: "USD", interval_months: 1 },
  card: { number, expiry: "203012", cvc: "123" },
});

/** A monthly USD 19.90 card sign-up, active: its subscription id. */
async function signUp(): Promise<string> {
  const answer = await api("POST", "/v1/subscriptions", { body: signupBody() });
  expect(answer.status).toBe(201);
  return view.parse(answer.json).subscription_id;
}

/** The sales the sandbox holds for a subscription's order_ids. */
const salesOf = (id: string) =>
  [...stack.sandbox.state.payments.payments()].filter(
    (payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id,
  );

/** The repository, except that every write closing a charge line as paid throws (the table unavailable, say). */
const tableDownForPaidCloses = decoration(repository, (built) => ({
  ...built,
  async updateAttempt(key, update) {
    if (update.set.status === "succeeded") throw new Error("the table is unavailable");
    return built.updateAttempt(key, update);
  },
}));

/** The repository, except that every write making a pending sign-up active throws (the table unavailable, say). */
const tableDownForActivation = decoration(repository, (built) => ({
  ...built,
  async updateSubscription(id, update) {
    if (update.set.status === "active" && update.expect.period === 0)
      throw new Error("the table is unavailable");
    return built.updateSubscription(id, update);
  },
}));

/** The repository, except that storing a token throws: the first write after a sign-up's payment. */
const tokenStoreDown = decoration(repository, (built) => ({
  ...built,
  async putToken() {
    throw new Error("the table is unavailable");
  },
}));

/** Past the in-flight window, then the attempt sweep. */
async function sweepLater() {
  await stack.clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
  return stack.attemptSweep();
}

describe("sign-up retries", () => {
  // The idempotency store would answer these retries itself. Here it has forgotten the first try (its record expired,
  // or was never kept), so the sign-up's own record must answer: its subscription id is derived from the key.
  const forgettingStore = decoration(idempotency, () => ({
    run: async (_request, work) => ({ kind: "completed", response: await work(), replayed: false }),
  }));
  let forgetful: MerchantApi;
  beforeAll(() => {
    forgetful = merchantApi([forgettingStore]);
  });

  it("answers a completed sign-up again without a second payment", async () => {
    const post = () =>
      forgetful("POST", "/v1/subscriptions", { body: signupBody(), idempotencyKey: "completed" });
    const first = await post();
    const again = await post();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBeUndefined();
    expect(again.json).toEqual(first.json);
    expect(salesOf(view.parse(first.json).subscription_id)).toHaveLength(1);
  });

  it("a sign-up whose record fails after the payment is pending, never an error; a retry finishes it with its card, not paid again", async () => {
    const request = { body: signupBody(), idempotencyKey: "crashed" };
    const first = await merchantApi([tableDownForPaidCloses])("POST", "/v1/subscriptions", request);
    expect(first.status).toBe(202);
    const id = view.parse(first.json).subscription_id;
    // A 202 is not kept: the retry runs again, meets its first try and finishes it with the token its line names.
    const retry = await api("POST", "/v1/subscriptions", request);
    expect(retry.status).toBe(201);
    expect(view.parse(retry.json)).toMatchObject({
      subscription_id: id,
      status: "active",
      card: { last4: "1111" },
    });
    expect(salesOf(id)).toHaveLength(1);

    // The line the failed close left open is settled by the sweep; the subscription keeps its card.
    expect((await sweepLater()).resolved).toBe(1);
    const stored = await stack.services.repository.getSubscription(id);
    expect(stored).toMatchObject({ status: "active", period: 1 });
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, stored?.token_id ?? "")?.status).toBe("active");
    expect(salesOf(id)).toHaveLength(1);
  });

  it("a sign-up paid while its writes fail is finished by the sweep with its card, without a retry", async () => {
    const failed = await merchantApi([tableDownForActivation])("POST", "/v1/subscriptions", {
      body: signupBody(),
    });
    expect(failed.status).toBe(202);
    const id = view.parse(failed.json).subscription_id;
    expect((await sweepLater()).resolved).toBe(1);
    const stored = await stack.services.repository.getSubscription(id);
    expect(stored).toMatchObject({ status: "active", period: 1, card: { last4: "1111" } });
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, stored?.token_id ?? "")?.status).toBe("active");
    expect(salesOf(id)).toHaveLength(1);
  });

  it("a sign-up whose token could not be recorded at all is ended and its payment refunded, never kept without a card", async () => {
    const request = { body: signupBody(), idempotencyKey: "no-token-kept" };
    const failed = await merchantApi([tokenStoreDown])("POST", "/v1/subscriptions", request);
    expect(failed.status).toBe(202);
    const id = view.parse(failed.json).subscription_id;
    expect((await sweepLater()).resolved).toBe(1);
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({
      status: "canceled",
      status_reason: "signup_incomplete",
      period: 0,
    });
    const [sale] = salesOf(id);
    expect(Number(sale?.balance)).toBe(0);
    const retry = await api("POST", "/v1/subscriptions", request);
    expect(retry.status).toBe(422);
    expect(errorOf(retry).code).toBe("SIGNUP_REFUSED");
    expect(salesOf(id)).toHaveLength(1);
  });

  it("a refused sign-up stays refused for its key; another key is a new sign-up", async () => {
    const refused = () =>
      forgetful("POST", "/v1/subscriptions", {
        body: signupBody("4000000000009995"),
        idempotencyKey: "refused",
      });
    expect((await refused()).status).toBe(422);
    const again = await refused();
    expect(again.status).toBe(422);
    expect(errorOf(again).code).toBe("SIGNUP_REFUSED");
    const other = { body: signupBody(), idempotencyKey: "another" };
    expect((await forgetful("POST", "/v1/subscriptions", other)).status).toBe(201);
  });
});

/** Pauses a subscription through the API: another writer's change. */
async function pause(id: string): Promise<void> {
  expect((await api("POST", `/v1/subscriptions/${id}/pause`, { body: {} })).status).toBe(200);
}

/**
 * The repository, except that before the first write announcing `eventType` another writer changes the subscription
 * (`interfere`), so that write finds it changed.
 */
function racedBefore(
  eventType: BillingEvent["type"],
  interfere: (subscriptionId: string) => Promise<void>,
): AnyDecoration {
  let raced = false;
  return decoration(repository, (built) => ({
    ...built,
    async updateSubscription(id, update) {
      if (!raced && update.events?.some((event) => event.type === eventType)) {
        raced = true;
        await interfere(id);
      }
      return built.updateSubscription(id, update);
    },
  }));
}

describe("paid changes racing other writes", () => {
  it("stores a new card that paid even when the subscription was paused meanwhile", async () => {
    const id = await signUp();
    const before = await stack.services.repository.getSubscription(id);
    const racing = merchantApi([racedBefore("payment_method.updated", pause)]);
    const changed = await racing("POST", `/v1/subscriptions/${id}/payment-method`, {
      body: { card: { number: "5555555555554444", expiry: "203012", cvc: "123" } },
    });
    expect(changed.status).toBe(200);
    expect(view.parse(changed.json)).toMatchObject({ status: "paused", card: { last4: "4444" } });
    const after = await stack.services.repository.getSubscription(id);
    expect(after?.token_id).not.toBe(before?.token_id);
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, before?.token_id ?? "")?.status).toBe(
      "deleted",
    );
    expect(stack.sandbox.state.tokens.find(TEST_MERCHANT.mid, after?.token_id ?? "")?.status).toBe("active");
  });
});

describe("prorated upgrades", () => {
  const upgrade = (id: string, amount: string, idempotencyKey: string, via: MerchantApi = api) =>
    via("POST", `/v1/subscriptions/${id}/adjust`, {
      body: { amount, proration: "charge_now" },
      idempotencyKey,
    });
  const prorationSales = (id: string) =>
    salesOf(id).filter((payment) => isAdHocPeriod(attemptKeyOf(payment.orderId)?.period ?? 0));
  /** A monthly subscription 10 days into its first paid period. */
  async function tenDaysIn(): Promise<string> {
    const id = await signUp();
    const subscription = await stack.services.repository.getSubscription(id);
    await stack.clock.set(new Date(Date.parse(subscription?.anchor_at ?? "") + 10 * 86_400_000));
    return id;
  }

  it("charges each change applied under concurrent requests once, priced on the plan it replaced", async () => {
    const id = await tenDaysIn();
    const answers = await Promise.all([
      upgrade(id, "29.90", "upgrade-a"),
      upgrade(id, "29.90", "upgrade-b"),
      upgrade(id, "39.90", "upgrade-c"),
    ]);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1);
    const stored = await stack.services.repository.getSubscription(id);
    expect(stored).toMatchObject({ plan: { amount: expect.stringMatching(/^(29|39)\.90$/) } });
    expect(stored?.pending_plan).toBeUndefined();
    // Each upgrade applied was charged once, for the difference from the plan it replaced; a change priced on a plan
    // another change replaced meanwhile was priced again (a downgrade by then: nothing charged).
    const plans = planHistories(await stack.events()).get(id)?.amounts ?? [];
    expect(plans[0]).toBe("19.90");
    const upgrades = plans.slice(1).filter((amount, index) => Number(amount) > Number(plans[index]));
    expect(prorationSales(id)).toHaveLength(upgrades.length);
    // Repeated, the applied change charges nothing more.
    expect((await upgrade(id, stored?.plan.amount ?? "", "upgrade-d")).status).toBe(200);
    expect(prorationSales(id)).toHaveLength(upgrades.length);
  });

  it("applies a paid upgrade over a write that raced it", async () => {
    const id = await tenDaysIn();
    const racing = merchantApi([racedBefore("subscription.updated", pause)]);
    const upgraded = await upgrade(id, "29.90", "upgrade-raced", racing);
    expect(upgraded.status).toBe(200);
    expect(view.parse(upgraded.json).plan.amount).toBe("29.90");
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({
      status: "paused",
      plan: { amount: "29.90" },
    });
    expect(prorationSales(id)).toHaveLength(1);
  });

  /** An upgrade to 29.90 whose proration commits at the gateway but whose answer is lost: 202. */
  async function upgradeLosingTheAnswer(id: string): Promise<void> {
    stack.sandbox.faults.configure({
      routes: { "payments.tokenbilling.rebill": { timeoutAfterCommitRate: 1 } },
    });
    expect((await upgrade(id, "29.90", `upgrade-lost-${id}`)).status).toBe(202);
    stack.sandbox.faults.configure({});
  }

  it("applies an upgrade whose proration answer was lost once the sweep finds it paid, with no repeat asked", async () => {
    const id = await tenDaysIn();
    await upgradeLosingTheAnswer(id);
    // Another change meanwhile is refused before anything is charged.
    const other = await upgrade(id, "49.90", "upgrade-other");
    expect(other.status).toBe(409);
    expect(errorOf(other).code).toBe("subscription_conflict");
    await sweepLater();
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({ plan: { amount: "29.90" } });
    expect(prorationSales(id)).toHaveLength(1);
  });

  it("refunds a proration that settles paid after the subscription was canceled", async () => {
    const id = await tenDaysIn();
    await upgradeLosingTheAnswer(id);
    const canceled = await api("DELETE", `/v1/subscriptions/${id}`);
    expect(canceled.status).toBe(200);
    await sweepLater();
    const [sale] = prorationSales(id);
    expect(sale?.balance).toBe("0.00");
    expect(await stack.services.repository.getSubscription(id)).toMatchObject({
      status: "canceled",
      plan: { amount: "19.90" },
    });
  });
});

describe("credits of a decrease (refund_now)", () => {
  /** The repository, except that claiming a refund throws: the request dies once the plan and its credit are written. */
  const diesBeforeTheRefund = decoration(repository, (built) => ({
    ...built,
    async createRefund() {
      throw new Error("the table is unavailable");
    },
  }));
  const fewer = (id: string, quantity: number, key: string, through: MerchantApi = api) =>
    through("POST", `/v1/subscriptions/${id}/adjust`, {
      body: { quantity, proration: "refund_now" },
      idempotencyKey: key,
    });
  const refundsOf = (id: string) =>
    [...stack.sandbox.state.payments.refunds()]
      .filter((refund) => attemptKeyOf(refund.orderId)?.subscription_id === id)
      .map((refund) => refund.amount);

  it("sends a credit whose request died after the plan changed from the sweep, once, and a cancel gives back only what is still paid for", async () => {
    const answer = await api("POST", "/v1/subscriptions", { body: { ...signupBody(), quantity: 4 } });
    const id = view.parse(answer.json).subscription_id;
    const subscription = await stack.services.repository.getSubscription(id);
    await stack.clock.set(new Date(Date.parse(subscription?.anchor_at ?? "") + 10 * 86_400_000));

    expect((await fewer(id, 2, "fewer-died", merchantApi([diesBeforeTheRefund]))).status).toBe(500);
    const written = await stack.services.repository.getSubscription(id);
    expect(written).toMatchObject({ plan: { quantity: 2 }, pending_credit: { order_id: `${id}-0-0` } });
    expect(refundsOf(id)).toEqual([]);
    // Inside its lease the sweep leaves it to the request; past it, the sweep sends it.
    expect((await stack.attemptSweep()).credits).toEqual({ examined: 0, sent: 0 });
    expect((await sweepLater()).credits).toEqual({ examined: 1, sent: 1 });
    const credit = written?.pending_credit?.amount;
    expect(refundsOf(id)).toEqual([credit]);
    expect((await stack.services.repository.getSubscription(id))?.pending_credit).toBeUndefined();
    // The same key asked again, and the sweep again: nothing more goes back.
    expect((await fewer(id, 2, "fewer-died")).status).toBe(200);
    expect((await sweepLater()).credits).toEqual({ examined: 0, sent: 0 });
    expect(refundsOf(id)).toEqual([credit]);

    // One seat fewer gives back its unused part (at most half the first credit's two seats: less of the period is left
    // after the sweeps); a cancel at the same instant gives back the last seat's unused part, the same amount, not
    // the unused part of the whole charge's four seats.
    expect((await fewer(id, 1, "fewer-again")).status).toBe(200);
    const canceled = await api("DELETE", `/v1/subscriptions/${id}`, { body: { refund: "prorated" } });
    expect(canceled.status).toBe(200);
    const [, second, last] = refundsOf(id);
    expect(Number(second)).toBeGreaterThan(0);
    expect(Number(second)).toBeLessThanOrEqual(Number(credit) / 2);
    expect(last).toBe(second);
  });
});

describe("writes that fail after the gateway took the money", () => {
  it("answers an ad hoc charge as being settled, never an error; the sweep settles it and the same key answers it", async () => {
    const id = await signUp();
    const request = { body: { amount: "5.00" }, idempotencyKey: "table-down" };
    const first = await merchantApi([tableDownForPaidCloses])(
      "POST",
      `/v1/subscriptions/${id}/charges`,
      request,
    );
    expect(first.status).toBe(202);
    expect(chargeView.parse(first.json).status).toBe("pending");
    await sweepLater();
    // A 202 is not kept: the same key runs again and answers what the charge came to.
    const again = await api("POST", `/v1/subscriptions/${id}/charges`, request);
    expect(again.status).toBe(201);
    expect(chargeView.parse(again.json).status).toBe("succeeded");
    expect(salesOf(id)).toHaveLength(2);
  });
});
