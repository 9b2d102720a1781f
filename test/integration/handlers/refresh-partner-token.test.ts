import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { functionNamed } from "../../../functions/function-table";
import { scheduledEvent, stubContext } from "../../../local/lambda/lambda-context";
import { BillingStack } from "../../../local/stack/billing-stack";
import { captureOutput, TestContainer } from "../../support/handler-env";

const refreshPartnerTokenDefinition = functionNamed("refresh-partner-token");

const container = new TestContainer(() => stack);
const refreshPartnerToken = container.handler(refreshPartnerTokenDefinition);

/*
 * The partner-token refresher as Lambda runs it: the partner API key from the gateway secret, the token from the
 * sandbox's partner API, stored in the Secrets Manager stand-in where every reader finds it.
 */

const HOUR = 3_600_000;
let stack: BillingStack;
let tokenSecret: string;

const invoke = () =>
  refreshPartnerToken(scheduledEvent(new Date().toISOString()), stubContext("refresh-token"));
const stored = () => JSON.parse(stack.secretsManager.secretString(tokenSecret) ?? "null");

beforeAll(async () => {
  stack = await BillingStack.start();
  tokenSecret = stack.variables().PARTNER_TOKEN_SECRET_ARN ?? "";
});
beforeEach(() => container.renew());
afterAll(async () => {
  await stack.close();
});

/** A token the sandbox issued, stored as if it had `hoursLeft` to live. */
function storeTokenWith(hoursLeft: number, token = stored()?.token ?? "eyJ.eyJ.sig") {
  const expiredAt = new Date(Date.now() + hoursLeft * HOUR).toISOString();
  stack.secretsManager.setSecret(tokenSecret, JSON.stringify({ token, expiredAt }));
  return token;
}

describe("refresh-partner-token on the local stack", () => {
  it("fills an empty secret with a 24 h token and puts the hours left", async () => {
    const output = captureOutput();
    const report = await invoke();
    expect(report.kind).toBe("refreshed");
    expect(report.hoursLeft).toBeCloseTo(24, 1);
    expect(stored()).toEqual({ token: expect.stringMatching(/^eyJ/), expiredAt: expect.any(String) });
    expect(output.metrics()["Billing/PartnerTokenHoursLeft"]).toBeCloseTo(24, 1);
    expect(output.text()).not.toContain(stored().token);
  });

  it("keeps a token with more than 8 h left", async () => {
    const kept = storeTokenWith(9);
    expect(await invoke()).toMatchObject({ kind: "kept" });
    expect(stored().token).toBe(kept);
  });

  it("replaces a token with less than 8 h left, so readers never reach their own 2 h window", async () => {
    const old = storeTokenWith(7);
    const report = await invoke();
    expect(report.kind).toBe("refreshed");
    expect(stored().token).not.toBe(old);
    expect(report.hoursLeft).toBeCloseTo(24, 1);
  });

  it("fails when the partner API cannot be reached, after putting the hours the stored token has left", async () => {
    storeTokenWith(1);
    stack.sandbox.faults.configure({ errorRate: 1 });
    const output = captureOutput();
    try {
      await expect(invoke()).rejects.toThrow(/partner token refresh failed: unavailable/);
    } finally {
      stack.sandbox.faults.configure({});
    }
    expect(output.metrics()["Billing/PartnerTokenHoursLeft"]).toBeCloseTo(1, 1);
    expect(output.logs()).toContainEqual(
      expect.objectContaining({ level: "ERROR", message: "invocation failed" }),
    );
  });
});
