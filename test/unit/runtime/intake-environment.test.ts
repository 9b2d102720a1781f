import { describe, expect, it } from "vitest";
import {
  EnvironmentError,
  gatewayWebhookEnvironment,
  intakeEnvironment,
  intakeProcessorEnvironment,
  loadEnvironment,
  partnerWebhookEnvironment,
  reconciliationEnvironment,
  variablesOf,
} from "../../../functions/runtime/environment";

describe("the intake handlers' environments (the CDK functions' variables)", () => {
  it("names each handler's variables", () => {
    expect(variablesOf(intakeEnvironment)).toEqual(["INTAKE_QUEUE_URL"]);
    expect(variablesOf(gatewayWebhookEnvironment).sort()).toEqual([
      "INTAKE_QUEUE_URL",
      "TABLE_NAME",
      "WEBHOOK_HEADER_PREFIX",
      "WEBHOOK_SECRETS_ARN",
    ]);
    expect(variablesOf(intakeProcessorEnvironment)).toEqual(
      expect.arrayContaining(["INTAKE_QUEUE_URL", "GATEWAY_SECRET_ARN", "EVENT_BUS_NAME"]),
    );
    expect(variablesOf(reconciliationEnvironment).sort()).toEqual([
      "GATEWAY_REBILL_ENDPOINT",
      "GATEWAY_SECRET_ARN",
      "PARTNER_BASE_URL",
      "PAYMENT_BASE_URL",
      "TABLE_NAME",
      "WEBHOOK_ADMIN_BASE_URL",
    ]);
    expect(variablesOf(partnerWebhookEnvironment)).toEqual(
      expect.arrayContaining(["PARTNER_TOKEN_SECRET_ARN", "PUBLIC_WEBHOOK_BASE_URL"]),
    );
  });

  it("refuses a header prefix that could not be a header name, and a missing secret ARN", () => {
    const env = {
      INTAKE_QUEUE_URL: "http://127.0.0.1:1/q",
      TABLE_NAME: "billing",
      WEBHOOK_HEADER_PREFIX: "bad prefix",
    };
    expect(() => loadEnvironment(gatewayWebhookEnvironment, env)).toThrow(EnvironmentError);
    expect(() => loadEnvironment(gatewayWebhookEnvironment, env)).toThrow(/WEBHOOK_SECRETS_ARN is not set/);
    expect(
      loadEnvironment(gatewayWebhookEnvironment, {
        ...env,
        WEBHOOK_HEADER_PREFIX: "service",
        WEBHOOK_SECRETS_ARN: "s",
      }),
    ).toMatchObject({
      WEBHOOK_HEADER_PREFIX: "service",
    });
  });
});
