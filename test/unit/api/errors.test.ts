import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiError,
  accepted,
  changeFailure,
  gatewayFailure,
  idempotencyKeyReused,
  methodNotAllowed,
  notFound,
  notRefundable,
  parseInput,
  RETRY_AFTER_SECONDS,
  readJsonBody,
  subscriptionCanceled,
  toErrorResponse,
  unauthorized,
} from "../../../functions/api/errors";
import {
  createRefundBody,
  createSubscriptionBody,
  subscriptionIdParams,
} from "../../../functions/api/merchant-api-schemas";
import { errorBody } from "../../../functions/api/merchant-api-views";
import { INSUFFICIENT_FUNDS_DECLINE } from "../../support/declines";

const CARD_NUMBER = "4111111111111111";
const VALID_SIGNUP = {
  customer: { name: "Ada", email: "ada@example.com" },
  plan: { amount: "19.90", currency: "USD", interval_months: 1 },
  card: { number: CARD_NUMBER, expiry: "203012", cvc: "123" },
};

/** What a request part that fails its schema answers. */
function answerTo(schema: z.ZodType, input: unknown) {
  try {
    parseInput(schema, input);
  } catch (error) {
    return toErrorResponse(error);
  }
  throw new Error("the input was accepted");
}

describe("schema violations → 400 naming the field, never the value", () => {
  it.each([
    ["a card number failing the check digit", { number: "4111111111111112" }, "card.number"],
    ["a card number with letters", { number: "4111x11111111111" }, "card.number"],
    ["an expiry that is not YYYYMM", { expiry: "203013" }, "card.expiry"],
    ["a CVC of 5 digits", { cvc: "12345" }, "card.cvc"],
  ])("%s", (_, cardChange, field) => {
    const input = { ...VALID_SIGNUP, card: { ...VALID_SIGNUP.card, ...cardChange } };
    const answer = answerTo(createSubscriptionBody, input);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: "invalid_request", field } });
    const text = JSON.stringify(answer);
    for (const value of Object.values(input.card)) expect(text).not.toContain(value);
  });

  it("names an unknown key, at any depth", () => {
    expect(answerTo(createSubscriptionBody, { ...VALID_SIGNUP, promo: "X" }).body).toMatchObject({
      error: { field: "promo", message: "is not a field of this request" },
    });
    const nested = { ...VALID_SIGNUP, card: { ...VALID_SIGNUP.card, holder: "ADA" } };
    expect(answerTo(createSubscriptionBody, nested).body).toMatchObject({ error: { field: "card.holder" } });
  });

  it("names a missing or mistyped field", () => {
    const { plan: _plan, ...noPlan } = VALID_SIGNUP;
    expect(answerTo(createSubscriptionBody, noPlan).body).toMatchObject({ error: { field: "plan" } });
    const mistyped = { ...VALID_SIGNUP, plan: { ...VALID_SIGNUP.plan, interval_months: "1" } };
    expect(answerTo(createSubscriptionBody, mistyped).body).toMatchObject({
      error: { field: "plan.interval_months" },
    });
    expect(answerTo(createRefundBody, { amount: "1.999", reason: "r" }).body).toMatchObject({
      error: { field: "amount" },
    });
    expect(answerTo(subscriptionIdParams, { id: "../etc" }).body).toMatchObject({ error: { field: "id" } });
  });

  it("a body that is not an object has no field", () => {
    const answer = answerTo(createRefundBody, [1, 2]);
    expect(answer.status).toBe(400);
    expect(errorBody.parse(answer.body).error.field).toBeUndefined();
  });

  it("a body that is not JSON is a 400; an empty body reads as {}", () => {
    let thrown: unknown;
    try {
      readJsonBody('{"card":{"number":"4111111111111111"');
    } catch (error) {
      thrown = error;
    }
    const answer = toErrorResponse(thrown);
    expect(answer).toMatchObject({ status: 400, body: { error: { code: "malformed_json" } } });
    expect(JSON.stringify(answer)).not.toContain(CARD_NUMBER);
    expect(readJsonBody("")).toEqual({});
    expect(readJsonBody(undefined)).toEqual({});
    expect(readJsonBody('{"amount":"5"}')).toEqual({ amount: "5" });
  });
});

describe("refusals of the API itself", () => {
  it.each([
    [unauthorized(), 401, "unauthorized"],
    [notFound("subscription"), 404, "not_found"],
    [methodNotAllowed(["GET", "POST"]), 405, "method_not_allowed"],
    [subscriptionCanceled(), 409, "subscription_canceled"],
    [idempotencyKeyReused(), 409, "idempotency_key_reused"],
    [notRefundable("nothing left to refund"), 422, "not_refundable"],
  ])("%o → %i %s", (error, status, code) => {
    const answer = toErrorResponse(error);
    expect(answer.status).toBe(status);
    expect(errorBody.parse(answer.body).error.code).toBe(code);
  });

  it("401 asks for a bearer token; 405 lists the allowed methods", () => {
    expect(toErrorResponse(unauthorized()).headers).toEqual({ "www-authenticate": "Bearer" });
    expect(toErrorResponse(methodNotAllowed(["GET", "POST"])).headers).toEqual({ allow: "GET, POST" });
  });

  it("maps what adjust and cancel report", () => {
    expect(toErrorResponse(changeFailure({ kind: "not_found" })).status).toBe(404);
    expect(
      toErrorResponse(changeFailure({ kind: "conflict", reason: "subscription is canceled" })),
    ).toMatchObject({ status: 409, body: { error: { message: "subscription is canceled" } } });
    expect(
      toErrorResponse(
        changeFailure({ kind: "refused", failure: { kind: "unavailable", reason: "HTTP 503" } }),
      ).status,
    ).toBe(503);
  });
});

describe("gateway failures", () => {
  it("a decline is a 422 whose code is the gateway's rescode", () => {
    const answer = toErrorResponse(
      gatewayFailure({ kind: "declined", code: "DC51", message: "Insufficient funds" }),
    );
    expect(answer).toEqual({
      status: 422,
      headers: {},
      body: { error: { code: "DC51", message: "the payment was declined", decline: { rescode: "DC51" } } },
    });
  });

  it("a decline says why in plain words and what can be done, with the gateway's codes", () => {
    const answer = toErrorResponse(
      gatewayFailure({
        kind: "declined",
        code: "DC51",
        message: "Insufficient funds",
        errcode: "INSUFFICIENT_FUNDS",
        reason: "insufficient_funds",
      }),
    );
    expect(answer.body).toEqual({
      error: {
        code: "DC51",
        message: "the payment was declined: The card has insufficient funds.",
        decline: INSUFFICIENT_FUNDS_DECLINE,
      },
    });
  });

  it("a card field the gateway refused is a 422 naming the request field", () => {
    expect(toErrorResponse(gatewayFailure({ kind: "invalid", code: "HE00", message: "card" })).body).toEqual({
      error: { code: "HE00", message: "the gateway refused the request", field: "card.number" },
    });
    expect(
      toErrorResponse(gatewayFailure({ kind: "invalid", code: "HE01", message: "" })).body,
    ).toMatchObject({
      error: { field: "card.expiry" },
    });
    expect(toErrorResponse(gatewayFailure({ kind: "invalid", code: "EC00", message: "x" }))).toMatchObject({
      status: 422,
      body: { error: { code: "EC00" } },
    });
  });

  it("a request the client refused to send is a 422 without the client's message", () => {
    const answer = toErrorResponse(
      gatewayFailure({
        kind: "invalid",
        code: "REQUEST",
        message: "invalid recurring.recurring_amount: too long",
      }),
    );
    expect(answer).toMatchObject({ status: 422, body: { error: { code: "gateway_rejected_request" } } });
    expect(JSON.stringify(answer)).not.toContain("recurring_amount");
  });

  it("unavailable and an untracked unknown outcome are 503 with Retry-After", () => {
    for (const failure of [
      { kind: "unavailable", reason: "HTTP 503" },
      { kind: "unknown", reason: "timed out after sending" },
    ] as const) {
      const answer = toErrorResponse(gatewayFailure(failure));
      expect(answer.status).toBe(503);
      expect(answer.headers).toEqual({ "retry-after": String(RETRY_AFTER_SECONDS) });
      expect(errorBody.parse(answer.body).error.code).toMatch(/^gateway_/);
    }
  });

  it("a tracked operation with an unknown outcome is accepted (202) with the resource as it stands", () => {
    const view = { refund_id: "r1", status: "unknown" };
    expect(accepted(view)).toEqual({ status: 202, headers: {}, body: view });
  });
});

describe("anything unexpected → 500 with a generic message", () => {
  it.each([
    ["an Error", new Error(`db exploded near ${CARD_NUMBER}`)],
    ["a string", "boom"],
    ["undefined", undefined],
    ["a ZodError from our own data", new z.ZodError([])],
    ["a TypeError", new TypeError("x is not a function")],
  ])("%s", (_, thrown) => {
    const answer = toErrorResponse(thrown);
    expect(answer).toEqual({
      status: 500,
      headers: {},
      body: { error: { code: "internal", message: "internal error" } },
    });
  });

  it("an ApiError is never a 5xx unless the gateway is unavailable", () => {
    const status = toErrorResponse(new ApiError(400, "invalid_request", "bad")).status;
    expect(status).toBe(400);
  });
});

describe("card numbers outside the card's field", () => {
  const schema = z.looseObject({});
  const refusedField = (input: unknown) => {
    try {
      parseInput(schema, input);
      return "accepted";
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      expect(error.message).not.toMatch(/\d{4}/);
      return error.field;
    }
  };

  it("refuses any field holding one, naming the field, never a key holding one", () => {
    expect(refusedField({ customer: { name: "Ann 4111 1111 1111 1111" } })).toBe("customer.name");
    expect(refusedField({ customer: { external_id: "4111-1111-1111-1111" } })).toBe("customer.external_id");
    expect(refusedField({ metadata: { note: "x", pan: "4111111111111111" } })).toBe("metadata.pan");
    expect(refusedField({ metadata: { "4111111111111111": "x" } })).toBe("metadata");
    expect(refusedField({ lines: ["ok", "5555555555554444"] })).toBe("lines.1");
    expect(refusedField("4111111111111111")).toBeUndefined();
  });

  it("takes the card's own number, and everything else", () => {
    expect(refusedField({ card: { number: "4111111111111111", expiry: "203012", cvc: "123" } })).toBe(
      "accepted",
    );
    expect(refusedField({ customer: { name: "Ann", phone: "+82 10-1234-5678" }, amount: "19.90" })).toBe(
      "accepted",
    );
  });
});
