import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Composition } from "../../../functions/composition/compose";
import { lambdaHandler } from "../../../functions/composition/lambda-entry";
import { createRuntime, type Runtime } from "../../../functions/composition/runtime";
import { readGatewaySecret } from "../../../functions/composition/secrets";
import * as SERVICE_SETS from "../../../functions/composition/service-sets";
import { functionNamed } from "../../../functions/function-table";
import { logger } from "../../../functions/lambda/observability";
import { apiGatewayEvent } from "../../../local/lambda/api-gateway-event";
import { stubContext } from "../../../local/lambda/lambda-context";
import { BillingStack, gatewaySecretOf } from "../../../local/stack/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { captureOutput } from "../../support/handler-env";

// What the function's generated entry exports (lib/lambda-bundling.ts): its row over the container's composition.
const getSubscription = lambdaHandler(functionNamed("get-subscription"));

/*
 * The composition root over a stack's variables, as a Lambda container composes over its environment: SDK clients on
 * the emulators, the gateway secret through Powertools parameters from the Secrets Manager stand-in.
 */

let stack: BillingStack;
let variables: Record<string, string>;
const secretOf = (name: string) => variables[name] ?? "";
const billingOf = (composition: Composition) => SERVICE_SETS.billing.from(composition);
const runtimes: Runtime[] = [];
/** A composition on new SDK clients: another container, with its own secret cache. */
const container = (variables: Record<string, string | undefined> = {}) => {
  const runtime = createRuntime(stack.runtimeOptions);
  runtimes.push(runtime);
  return stack.compose({}, variables, runtime);
};

beforeAll(async () => {
  stack = await BillingStack.start({ webhookBaseUrl: "https://billing.example.com/webhooks" });
  variables = stack.variables();
});
afterEach(() => {
  vi.unstubAllEnvs();
  stack.secretsManager.setSecret(
    secretOf("GATEWAY_SECRET_ARN"),
    JSON.stringify(gatewaySecretOf(TEST_MERCHANT)),
  );
});
afterAll(async () => {
  for (const runtime of runtimes) runtime.close();
  await stack.close();
});

describe("the composition root", () => {
  it("builds each component once per composition; another composition builds its own", async () => {
    const composition = container();
    const first = await billingOf(composition);
    const again = await billingOf(composition);
    expect(again.repository).toBe(first.repository);
    expect(again.gateway).toBe(first.gateway);
    expect((await billingOf(container())).repository).not.toBe(first.repository);
  });

  it("wires the variables' table, webhook base and charge policy", async () => {
    const services = await billingOf(container({ CHARGE_POLICY: '{"dunningScheduleDays":[2,9]}' }));
    expect(services.policy.dunningScheduleDays).toEqual([2, 9]);
    expect(services.statusUrl).toBe("https://billing.example.com/webhooks/status");
    expect(services.recurringNotifyUrl({ subscription_id: "sub 1", notify_token: "t0k/en" })).toBe(
      "https://billing.example.com/webhooks/recurring?subscription_id=sub+1&token=t0k%2Fen",
    );
    expect(await services.repository.getSubscription("sub_none")).toBeUndefined();
  });

  it("fails a set naming the missing variable, and builds once it is there", async () => {
    await expect(billingOf(container({ GATEWAY_SECRET_ARN: undefined }))).rejects.toThrow(
      "GATEWAY_SECRET_ARN is not set",
    );
    await expect(billingOf(container())).resolves.toHaveProperty("repository");
  });

  it("needs only the table and the queue for the charge run", async () => {
    const only = { TABLE_NAME: variables.TABLE_NAME, CHARGE_QUEUE_URL: variables.CHARGE_QUEUE_URL };
    const bare = Object.fromEntries(
      Object.keys(variables).map((name) => [name, only[name as keyof typeof only]]),
    );
    const services = await SERVICE_SETS.chargeRun.from(container(bare));
    expect(Object.keys(services).sort()).toEqual(["clock", "queue", "repository"]);
    expect(Object.keys(SERVICE_SETS.chargeRun.environment.shape).sort()).toEqual([
      "CHARGE_QUEUE_URL",
      "TABLE_NAME",
    ]);
  });

  it("names the invalid field of the gateway secret without its value", async () => {
    const secret = { ...gatewaySecretOf(TEST_MERCHANT), aesKey: "not-a-key" };
    stack.secretsManager.setSecret(secretOf("GATEWAY_SECRET_ARN"), JSON.stringify(secret));
    const failure = billingOf(container());
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
    const runtime = createRuntime(stack.runtimeOptions);
    runtimes.push(runtime);
    expect(await readGatewaySecret(runtime, secretOf("GATEWAY_SECRET_ARN"))).toMatchObject({ aesKey });
    await expect(billingOf(container())).resolves.toHaveProperty("gateway");
  });

  it("refuses a gateway secret that is not JSON without quoting it", async () => {
    stack.secretsManager.setSecret(secretOf("GATEWAY_SECRET_ARN"), `apiKey=${TEST_MERCHANT.apiKey}`);
    const failure = billingOf(container());
    await expect(failure).rejects.toThrow(/is not JSON$/);
    await expect(failure).rejects.not.toThrow(TEST_MERCHANT.apiKey);
  });

  it("has the logger mask the merchant's credentials anywhere once the secret is read", async () => {
    await billingOf(container());
    const output = captureOutput();
    logger.info(`calling with ${TEST_MERCHANT.apiKey} and ${TEST_MERCHANT.aesKeyHex}`);
    expect(output.text()).toContain("calling with [REDACTED] and [REDACTED]");
  });

  it("shares the partner access token through Secrets Manager between containers", async () => {
    const partnerOf = async () => (await SERVICE_SETS.partnerWebhook.from(container())).partner;
    expect((await (await partnerOf()).listWebhooks()).kind).toBe("success");
    const stored = stack.secretsManager.secretString(secretOf("PARTNER_TOKEN_SECRET_ARN"));
    expect(JSON.parse(stored ?? "{}").token).toMatch(/^eyJ/);
    expect((await (await partnerOf()).listWebhooks()).kind).toBe("success");
    expect(stack.secretsManager.secretString(secretOf("PARTNER_TOKEN_SECRET_ARN"))).toBe(stored);
  });
});

describe("a Lambda container", () => {
  it("composes once over its environment (process.env) on the first invocation", async () => {
    for (const [name, value] of Object.entries({ ...variables, ...stack.endpointVariables() }))
      vi.stubEnv(name, value);
    const request = { method: "GET", url: "/v1/subscriptions/sub_none", headers: {}, body: "" };
    const event = apiGatewayEvent(request, {
      routeKey: "GET /v1/subscriptions/{id}",
      pathParameters: { id: "sub_none" },
    });
    const answer = await getSubscription(event, stubContext("get-subscription"));
    expect(answer.statusCode).toBe(404);
    // The container keeps its composition: a changed environment is not read again.
    vi.stubEnv("TABLE_NAME", "no-such-table");
    expect((await getSubscription(event, stubContext("get-subscription"))).statusCode).toBe(404);
  });
});
