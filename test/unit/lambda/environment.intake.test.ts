import { describe, expect, it } from "vitest";
import * as SERVICE_SETS from "../../../functions/composition/service-sets";
import { EnvironmentError, loadEnvironment, variablesOf } from "../../../functions/lambda/environment";

describe("the intake handlers' environments (the CDK functions' variables)", () => {
  it("names each handler's variables", () => {
    expect(variablesOf(SERVICE_SETS.intakeReceiver.environment)).toEqual(["INTAKE_QUEUE_URL"]);
    expect(variablesOf(SERVICE_SETS.gatewayWebhook.environment).sort()).toEqual([
      "INTAKE_QUEUE_URL",
      "TABLE_NAME",
      "WEBHOOK_HEADER_PREFIX",
      "WEBHOOK_SECRETS_ARN",
    ]);
    expect(variablesOf(SERVICE_SETS.intakeWorker.environment)).toEqual(
      expect.arrayContaining(["INTAKE_QUEUE_URL", "GATEWAY_SECRET_ARN", "TABLE_NAME"]),
    );
    expect(variablesOf(SERVICE_SETS.reconciliation.environment).sort()).toEqual([
      "GATEWAY_REBILL_ENDPOINT",
      "GATEWAY_SECRET_ARN",
      "PARTNER_BASE_URL",
      "PAYMENT_BASE_URL",
      "TABLE_NAME",
      "WEBHOOK_ADMIN_BASE_URL",
    ]);
    expect(variablesOf(SERVICE_SETS.partnerWebhook.environment)).toEqual(
      expect.arrayContaining(["PARTNER_TOKEN_SECRET_ARN", "PUBLIC_WEBHOOK_BASE_URL"]),
    );
  });

  it("refuses a header prefix that could not be a header name, and a missing secret ARN", () => {
    const env = {
      INTAKE_QUEUE_URL: "http://127.0.0.1:1/q",
      TABLE_NAME: "billing",
      WEBHOOK_HEADER_PREFIX: "bad prefix",
    };
    expect(() => loadEnvironment(SERVICE_SETS.gatewayWebhook.environment, env)).toThrow(EnvironmentError);
    expect(() => loadEnvironment(SERVICE_SETS.gatewayWebhook.environment, env)).toThrow(
      /WEBHOOK_SECRETS_ARN is not set/,
    );
    expect(
      loadEnvironment(SERVICE_SETS.gatewayWebhook.environment, {
        ...env,
        WEBHOOK_HEADER_PREFIX: "service",
        WEBHOOK_SECRETS_ARN: "s",
      }),
    ).toMatchObject({
      WEBHOOK_HEADER_PREFIX: "service",
    });
  });
});
