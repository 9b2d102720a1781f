import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { logger } from "../../../functions/runtime/observability";
import {
  getBillingServices,
  getChargeRunServices,
  resetServices,
} from "../../../functions/runtime/services-from-env";
import { BillingStack, gatewaySecretOf } from "../../../local/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/merchant-config";
import { captureOutput, useLambdaEnvironment } from "../../support/handler-env";

/*
 * The composition from the environment alone, as a Lambda container does it: SDK clients through AWS_ENDPOINT_URL_*,
 * the gateway secret through Powertools parameters from the Secrets Manager stand-in.
 */

let stack: BillingStack;
let env: Record<string, string>;
const secretOf = (name: string) => env[name] ?? "";

beforeAll(async () => {
  stack = await BillingStack.start({ webhookBaseUrl: "https://billing.example.com/webhooks" });
  env = stack.environment();
});
beforeEach(() => useLambdaEnvironment(env));
afterEach(() => {
  vi.unstubAllEnvs();
  resetServices();
  stack.secretsManager.setSecret(
    secretOf("GATEWAY_SECRET_ARN"),
    JSON.stringify(gatewaySecretOf(TEST_MERCHANT)),
  );
});
afterAll(() => stack.close());

describe("services from the environment", () => {
  it("builds once per container and again after a reset", async () => {
    const first = await getBillingServices();
    expect(await getBillingServices()).toBe(first);
    resetServices();
    expect(await getBillingServices()).not.toBe(first);
  });

  it("wires the environment's table, queue, webhook base and charge policy", async () => {
    vi.stubEnv("CHARGE_POLICY", '{"dunningScheduleDays":[2,9]}');
    const services = await getBillingServices();
    expect(services.chargeQueueUrl).toBe(env.CHARGE_QUEUE_URL);
    expect(services.policy.dunningScheduleDays).toEqual([2, 9]);
    expect(services.recurringNotifyUrl("sub 1")).toBe(
      "https://billing.example.com/webhooks/recurring?subscription_id=sub%201",
    );
    expect(await services.repository.getSubscription("sub_none")).toBeUndefined();
  });

  it("fails a build naming the missing variable, and succeeds once it is set", async () => {
    vi.stubEnv("EVENT_BUS_NAME", undefined);
    await expect(getBillingServices()).rejects.toThrow("EVENT_BUS_NAME is not set");
    vi.stubEnv("EVENT_BUS_NAME", "billing-local");
    await expect(getBillingServices()).resolves.toHaveProperty("repository");
  });

  it("needs only the table and queue for the charge run", async () => {
    for (const name of Object.keys(env)) {
      if (!["TABLE_NAME", "CHARGE_QUEUE_URL"].includes(name) && !name.startsWith("AWS_"))
        vi.stubEnv(name, undefined);
    }
    const services = await getChargeRunServices();
    expect(Object.keys(services).sort()).toEqual(["clock", "queue", "repository"]);
  });

  it("names the invalid field of the gateway secret without its value", async () => {
    const secret = { ...gatewaySecretOf(TEST_MERCHANT), aesKey: "not-a-key" };
    stack.secretsManager.setSecret(secretOf("GATEWAY_SECRET_ARN"), JSON.stringify(secret));
    const failure = getBillingServices();
    await expect(failure).rejects.toThrow(
      /gateway secret .* is invalid: aesKey must be 64 hex characters or a 32-character key/,
    );
    await expect(failure).rejects.not.toThrow(/not-a-key/);
  });

  it("reads the AES key under its earlier name aesKeyHex too", async () => {
    const { aesKey, ...rest } = gatewaySecretOf(TEST_MERCHANT);
    stack.secretsManager.setSecret(
      secretOf("GATEWAY_SECRET_ARN"),
      JSON.stringify({ ...rest, aesKeyHex: aesKey }),
    );
    const services = await getBillingServices();
    expect(services.gatewayClient.context.config.aesKey).toBe(aesKey);
  });

  it("refuses a gateway secret that is not JSON without quoting it", async () => {
    stack.secretsManager.setSecret(secretOf("GATEWAY_SECRET_ARN"), `apiKey=${TEST_MERCHANT.apiKey}`);
    const failure = getBillingServices();
    await expect(failure).rejects.toThrow(/is not JSON$/);
    await expect(failure).rejects.not.toThrow(TEST_MERCHANT.apiKey);
  });

  it("has the logger mask the merchant's credentials anywhere once the secret is read", async () => {
    await getBillingServices();
    const output = captureOutput();
    logger.info(`calling with ${TEST_MERCHANT.apiKey} and ${TEST_MERCHANT.aesKeyHex}`);
    expect(output.text()).toContain("calling with [REDACTED] and [REDACTED]");
  });

  it("shares the partner access token through Secrets Manager between containers", async () => {
    const first = await getBillingServices();
    expect((await first.gatewayClient.partner.listWebhooks()).kind).toBe("success");
    const stored = stack.secretsManager.secretString(secretOf("PARTNER_TOKEN_SECRET_ARN"));
    expect(JSON.parse(stored ?? "{}").token).toMatch(/^eyJ/);
    resetServices(); // another container
    expect((await (await getBillingServices()).gatewayClient.partner.listWebhooks()).kind).toBe("success");
    expect(stack.secretsManager.secretString(secretOf("PARTNER_TOKEN_SECRET_ARN"))).toBe(stored);
  });
});
