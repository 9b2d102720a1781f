import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ServicesOf } from "../../../functions/composition/service-set";
import * as SERVICE_SETS from "../../../functions/composition/service-sets";
import { AD_HOC_FIRST_PERIOD } from "../../../functions/core/base/charge-kind";
import { run as adjustSubscription } from "../../../functions/handlers/adjust-subscription";
import { run as cancelSubscription } from "../../../functions/handlers/cancel-subscription";
import { run as createCharge } from "../../../functions/handlers/create-charge";
import { run as createCheckout } from "../../../functions/handlers/create-checkout";
import { run as createRefund } from "../../../functions/handlers/create-refund";
import { run as createSubscription } from "../../../functions/handlers/create-subscription";
import { run as getOpenApi } from "../../../functions/handlers/get-openapi";
import { run as getSubscription } from "../../../functions/handlers/get-subscription";
import { run as listCharges } from "../../../functions/handlers/list-charges";
import { BillingStack } from "../../../local/stack/billing-stack";
import { INSUFFICIENT_FUNDS_DECLINE } from "../../support/declines";
import { type ApiCall, answerOf, apiEvent, errorOf, stackIdempotency } from "../../support/merchant-api";

// Each handler's plain function with services injected: the billing core on a BillingStack (dynalite and the
// gateway sandbox) and the Powertools idempotency store on its table.

let stack: BillingStack;
let closeIdempotency: () => void;
let services: BillingStack["services"] & ReturnType<typeof stackIdempotency>;
let checkoutServices: ServicesOf<typeof SERVICE_SETS.checkouts>;
let queryServices: ServicesOf<typeof SERVICE_SETS.documentQueries>;

beforeAll(async () => {
  stack = await BillingStack.start();
  const store = stackIdempotency(stack);
  closeIdempotency = store.close;
  services = { ...stack.services, ...store };
  checkoutServices = { ...(await SERVICE_SETS.checkouts.from(stack.composition)), ...store };
  queryServices = await SERVICE_SETS.documentQueries.from(stack.composition);
});
afterAll(async () => {
  closeIdempotency();
  await stack.close();
});

const customer = { name: "Ada Lovelace", email: "ada@example.com" };
const plan = { amount: "29.00", currency: "USD", interval_months: 1 };
const card = (number = "4111111111111111") => ({ number, expiry: "203012", cvc: "123" });

const call = (method: string, path: string, options: ApiCall = {}) => apiEvent(method, path, options);

async function signUp(number?: string) {
  const answer = answerOf(
    await createSubscription(
      call("POST", "/v1/subscriptions", { body: { customer, plan, card: card(number) } }),
      services,
    ),
  );
  const created = z.object({ subscription_id: z.string() }).safeParse(answer.json);
  return { answer, id: created.success ? created.data.subscription_id : "" };
}

describe("create-subscription", () => {
  it("answers 201 with the subscription and the masked card only", async () => {
    const { answer } = await signUp();
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({
      status: "active",
      card: { first4: "4111", last4: "1111" },
      billing: "token",
    });
    expect(answer.text).not.toContain("4111111111111111");
    expect(answer.text).not.toMatch(/token_id|cvc/);
  });

  it("answers 422 with the decline's codes, its reason and the next step for a declining card", async () => {
    const { answer } = await signUp("4000000000009995");
    expect(answer.status).toBe(422);
    expect(errorOf(answer)).toEqual({
      code: "DC51",
      message: "the payment was declined: The card has insufficient funds.",
      decline: INSUFFICIENT_FUNDS_DECLINE,
    });
  });

  it("answers 400 naming the card field, never its value", async () => {
    const body = { customer, plan, card: { ...card(), number: "4111111111111112" } };
    const answer = answerOf(await createSubscription(call("POST", "/v1/subscriptions", { body }), services));
    expect(answer.status).toBe(400);
    expect(errorOf(answer).field).toBe("card.number");
    expect(answer.text).not.toContain("4111111111111112");
  });
});

describe("create-checkout", () => {
  it("answers 201 with the fgkey, the SDK and request_pay of the payment window", async () => {
    const body = { customer, plan, billing: "token", return_url: "https://merchant.example/done" };
    const answer = answerOf(await createCheckout(call("POST", "/v1/checkouts", { body }), checkoutServices));
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({
      checkout_id: expect.any(String),
      subscription_id: expect.any(String),
      order_id: expect.stringMatching(/-0-0$/),
      checkout_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/pay\/[\w-]+\.[\w-]+$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      fgkey: expect.any(String),
      sdk_url: expect.stringMatching(/\/v1\/javascriptSDK\.js$/),
      request_pay: expect.objectContaining({ url: expect.objectContaining({ return_url: body.return_url }) }),
    });
  });
});

describe("get-subscription", () => {
  it("answers the subscription, 404 for an unknown id and 400 for a malformed one", async () => {
    const { id } = await signUp();
    const found = answerOf(await getSubscription(call("GET", `/v1/subscriptions/${id}`), services));
    expect(found).toMatchObject({ status: 200, json: { subscription_id: id, current_period: { index: 0 } } });
    const missing = answerOf(await getSubscription(call("GET", "/v1/subscriptions/sub_none"), services));
    expect(missing.status).toBe(404);
    const malformed = answerOf(await getSubscription(call("GET", "/v1/subscriptions/not-an-id!"), services));
    expect(malformed.status).toBe(400);
    expect(errorOf(malformed).field).toBe("id");
  });
});

describe("adjust-subscription and cancel-subscription", () => {
  it("changes the plan amount, then cancels (twice: the same answer)", async () => {
    const { id } = await signUp();
    const adjusted = answerOf(
      await adjustSubscription(
        call("POST", `/v1/subscriptions/${id}/adjust`, { body: { amount: "35.00" } }),
        services,
      ),
    );
    expect(adjusted).toMatchObject({ status: 200, json: { plan: { amount: "35.00" } } });
    for (let repeat = 0; repeat < 2; repeat += 1) {
      const canceled = answerOf(
        await cancelSubscription(call("DELETE", `/v1/subscriptions/${id}`), services),
      );
      expect(canceled).toMatchObject({ status: 200, json: { status: "canceled", next_charge_at: null } });
    }
    const late = answerOf(
      await adjustSubscription(
        call("POST", `/v1/subscriptions/${id}/adjust`, { body: { amount: "40.00" } }),
        services,
      ),
    );
    expect(late.status).toBe(409);
  });

  it("answers 404 and 400 for an unknown subscription or a bad amount", async () => {
    const unknown = answerOf(
      await cancelSubscription(call("DELETE", "/v1/subscriptions/sub_none"), services),
    );
    expect(unknown.status).toBe(404);
    const bad = answerOf(
      await adjustSubscription(
        call("POST", "/v1/subscriptions/sub_none/adjust", { body: { amount: "-1" } }),
        services,
      ),
    );
    expect(bad.status).toBe(400);
    expect(errorOf(bad).field).toBe("amount");
  });
});

describe("create-charge and list-charges", () => {
  it("charges ad hoc once per Idempotency-Key and lists the line after the scheduled ones", async () => {
    const { id } = await signUp();
    const charge = (amount: string) =>
      createCharge(
        call("POST", `/v1/subscriptions/${id}/charges`, { body: { amount }, idempotencyKey: "adhoc-1" }),
        services,
      );

    const first = answerOf(await charge("7.50"));
    const again = answerOf(await charge("7.50"));
    const reused = answerOf(await charge("8.00"));

    expect(first).toMatchObject({
      status: 201,
      json: { kind: "ad_hoc", period: AD_HOC_FIRST_PERIOD, amount: "7.50", status: "succeeded" },
    });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(reused.status).toBe(409);
    expect(errorOf(reused).code).toBe("idempotency_key_reused");

    const listed = answerOf(await listCharges(call("GET", `/v1/subscriptions/${id}/charges`), queryServices));
    expect(listed.json).toEqual({
      charges: [
        expect.objectContaining({ kind: "scheduled", period: 0, status: "succeeded" }),
        expect.objectContaining({ kind: "ad_hoc", period: AD_HOC_FIRST_PERIOD, amount: "7.50" }),
      ],
    });
  });

  it("answers 404 for an unknown subscription and 409 for a canceled one", async () => {
    const missing = answerOf(
      await createCharge(call("POST", "/v1/subscriptions/sub_none/charges"), services),
    );
    expect(missing.status).toBe(404);
    expect(
      answerOf(await listCharges(call("GET", "/v1/subscriptions/sub_none/charges"), queryServices)).status,
    ).toBe(404);
    const { id } = await signUp();
    await cancelSubscription(call("DELETE", `/v1/subscriptions/${id}`), services);
    const canceled = answerOf(await createCharge(call("POST", `/v1/subscriptions/${id}/charges`), services));
    expect(canceled.status).toBe(409);
    expect(errorOf(canceled).code).toBe("subscription_canceled");
  });
});

describe("create-refund", () => {
  it("refunds part of a charge, then refuses more than the balance", async () => {
    const { id } = await signUp();
    const path = `/v1/charges/${id}-0-0/refunds`;
    const partial = answerOf(
      await createRefund(call("POST", path, { body: { amount: "9.00", reason: "goodwill" } }), services),
    );
    expect(partial).toMatchObject({
      status: 201,
      json: { charge_id: `${id}-0-0`, amount: "9.00", status: "succeeded", reason: "goodwill" },
    });
    const tooMuch = answerOf(
      await createRefund(call("POST", path, { body: { amount: "25.00", reason: "x" } }), services),
    );
    expect(tooMuch.status).toBe(422);
    expect(errorOf(tooMuch).code).toBe("not_refundable");
    const noReason = answerOf(await createRefund(call("POST", path, { body: {} }), services));
    expect(errorOf(noReason).field).toBe("reason");
  });
});

describe("get-openapi", () => {
  it("serves the OpenAPI document with the API's own URL", async () => {
    const answer = answerOf(await getOpenApi(call("GET", "/openapi.json")));
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      openapi: "3.1.0",
      servers: [{ url: "https://abc123defg.execute-api.us-east-1.amazonaws.com" }],
    });
  });
});
