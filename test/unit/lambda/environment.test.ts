import { describe, expect, it } from "vitest";
import * as SERVICE_SETS from "../../../functions/composition/service-sets";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/base/charge-policy";
import {
  type Environment,
  EnvironmentError,
  loadEnvironment,
  variablesOf,
} from "../../../functions/lambda/environment";

const FULL = {
  TABLE_NAME: "billing",
  CHARGE_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/charges",
  EVENT_BUS_NAME: "billing-bus",
  GATEWAY_SECRET_ARN: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:gateway-AbCdEf",
  PARTNER_TOKEN_SECRET_ARN: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:partner-token-AbCdEf",
  PAYMENT_BASE_URL: "https://api.gateway.example",
  WEBHOOK_ADMIN_BASE_URL: "https://webhooks.gateway.example",
  PARTNER_BASE_URL: "https://partner.gateway.example",
  PUBLIC_WEBHOOK_BASE_URL: "https://billing.example.com/webhooks",
};

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof EnvironmentError) return error.problems;
    throw error;
  }
  throw new Error("expected an EnvironmentError");
}

describe("handler environments", () => {
  it("lists the variables of each handler's subset", () => {
    expect(variablesOf(SERVICE_SETS.chargeRun.environment)).toEqual(["TABLE_NAME", "CHARGE_QUEUE_URL"]);
    expect(variablesOf(SERVICE_SETS.partnerToken.environment).sort()).toEqual([
      "GATEWAY_REBILL_ENDPOINT",
      "GATEWAY_SECRET_ARN",
      "PARTNER_BASE_URL",
      "PARTNER_TOKEN_SECRET_ARN",
      "PAYMENT_BASE_URL",
      "WEBHOOK_ADMIN_BASE_URL",
    ]);
    // The billing core calls no partner API and publishes nothing itself (its writes fill the outboxes): neither the
    // partner token nor the bus is among its variables; only the delivery reaches the bus.
    expect(variablesOf(SERVICE_SETS.billing.environment)).toHaveLength(12);
    // The documents' seller, when the charge policy names none.
    expect(variablesOf(SERVICE_SETS.billing.environment)).toContain("MERCHANT_NAME");
    expect(variablesOf(SERVICE_SETS.billing.environment)).toContain("GATEWAY_DECLINE_CODES");
    expect(variablesOf(SERVICE_SETS.billing.environment)).toContain("GATEWAY_PRODUCT_LINK");
    expect(variablesOf(SERVICE_SETS.billing.environment)).not.toContain("EVENT_BUS_NAME");
    expect(variablesOf(SERVICE_SETS.eventDelivery.environment).sort()).toEqual([
      "EVENT_BUS_NAME",
      "TABLE_NAME",
    ]);
  });

  it("takes only the handler's own variables and ignores the rest of the process environment", () => {
    expect(loadEnvironment(SERVICE_SETS.chargeRun.environment, { ...FULL, PATH: "/usr/bin" })).toEqual({
      TABLE_NAME: "billing",
      CHARGE_QUEUE_URL: FULL.CHARGE_QUEUE_URL,
    });
  });

  it("names every missing or invalid variable and never echoes a value", () => {
    const problems = problemsOf(() =>
      loadEnvironment(SERVICE_SETS.billing.environment, {
        ...FULL,
        TABLE_NAME: undefined,
        PAYMENT_BASE_URL: "not a url secret",
      }),
    );
    const message = new EnvironmentError(problems).message;
    expect(problems).toContain("TABLE_NAME is not set");
    expect(message).toMatch(/PAYMENT_BASE_URL .*URL/i);
    expect(message).not.toContain("not a url secret");
  });

  it("requires the partner-token secret for the refresher but not for the billing core", () => {
    const { PARTNER_TOKEN_SECRET_ARN: _omitted, ...withoutToken } = FULL;
    expect(
      loadEnvironment(SERVICE_SETS.billing.environment, withoutToken).PARTNER_TOKEN_SECRET_ARN,
    ).toBeUndefined();
    expect(problemsOf(() => loadEnvironment(SERVICE_SETS.partnerToken.environment, withoutToken))).toEqual([
      "PARTNER_TOKEN_SECRET_ARN is not set",
    ]);
  });
});

describe("CHARGE_POLICY", () => {
  const withPolicy = (policy: string) => ({ ...FULL, CHARGE_POLICY: policy });

  it("is optional and overrides the named fields only", () => {
    expect(loadEnvironment(SERVICE_SETS.billing.environment, FULL).CHARGE_POLICY).toBeUndefined();
    // The set's environment is typed as a plain z.ZodObject; its CHARGE_POLICY is environmentSchema's.
    const { CHARGE_POLICY: policy }: Pick<Environment, "CHARGE_POLICY"> = loadEnvironment(
      SERVICE_SETS.billing.environment,
      withPolicy('{"dunningScheduleDays":[2,4],"retryBaseSeconds":60}'),
    );
    expect(policy).toEqual({ dunningScheduleDays: [2, 4], retryBaseSeconds: 60 });
    expect({ ...DEFAULT_CHARGE_POLICY, ...policy }.dunningFinalAction).toEqual(
      DEFAULT_CHARGE_POLICY.dunningFinalAction,
    );
  });

  it.each([
    ["not JSON", "{dunning", "CHARGE_POLICY must be JSON"],
    ["a typo", '{"dunningDays":[1]}', "CHARGE_POLICY"],
    ["a negative day", '{"dunningScheduleDays":[1,-3]}', "CHARGE_POLICY.dunningScheduleDays.1"],
    ["a delay SQS cannot hold", '{"retryMaxSeconds":3600}', "CHARGE_POLICY.retryMaxSeconds"],
    ["a window shorter than a call", '{"inflightWindowMs":1000}', "CHARGE_POLICY.inflightWindowMs"],
    ["base above max", '{"retryBaseSeconds":600,"retryMaxSeconds":300}', "CHARGE_POLICY.retryBaseSeconds"],
  ])("refuses %s, naming the field", (_case, json, field) => {
    const [problem] = problemsOf(() => loadEnvironment(SERVICE_SETS.billing.environment, withPolicy(json)));
    expect(problem?.startsWith(field)).toBe(true);
  });

  it("no longer holds the gateway's decline codes (GATEWAY_DECLINE_CODES does)", () => {
    const [problem] = problemsOf(() =>
      loadEnvironment(SERVICE_SETS.billing.environment, withPolicy('{"tokenExpiredCodes":["TK01"]}')),
    );
    expect(problem?.startsWith("CHARGE_POLICY")).toBe(true);
  });
});

describe("GATEWAY_DECLINE_CODES", () => {
  const withCodes = (codes: string) => ({ ...FULL, GATEWAY_DECLINE_CODES: codes });

  it("is optional and overrides the named lists only", () => {
    expect(loadEnvironment(SERVICE_SETS.billing.environment, FULL).GATEWAY_DECLINE_CODES).toBeUndefined();
    const { GATEWAY_DECLINE_CODES: codes }: Pick<Environment, "GATEWAY_DECLINE_CODES"> = loadEnvironment(
      SERVICE_SETS.billing.environment,
      withCodes('{"tokenRevokedCodes":[]}'),
    );
    expect(codes).toEqual({ tokenRevokedCodes: [] });
  });

  it.each([
    ["not JSON", "[TK", "GATEWAY_DECLINE_CODES must be JSON"],
    ["a typo", '{"deadCardCodes":["S023"]}', "GATEWAY_DECLINE_CODES"],
    ["an empty code", '{"deadCardErrcodes":[""]}', "GATEWAY_DECLINE_CODES.deadCardErrcodes.0"],
  ])("refuses %s, naming the field", (_case, json, field) => {
    const [problem] = problemsOf(() => loadEnvironment(SERVICE_SETS.billing.environment, withCodes(json)));
    expect(problem?.startsWith(field)).toBe(true);
  });
});
