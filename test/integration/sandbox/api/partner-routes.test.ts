import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PARTNER_TOKEN_PATH } from "../../../../functions/gateway/partner-token";
import { type Sandbox, startSandbox } from "../../../../sandbox/server";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import { callSandbox, countingFetch, sandboxGatewayClient } from "../../../support/sandbox-gateway";

const START = new Date("2026-06-01T00:00:00.000Z");
const TOKEN_CALL = `GET ${PARTNER_TOKEN_PATH}`;
const WEBHOOKS = `/api/v1/partner/merchants/${TEST_MERCHANT.mid}/webhooks`;
const LIST_CALL = `GET ${WEBHOOKS}`;
const SUBSCRIPTION = {
  endpointUrl: "https://merchant.example/partner-events",
  eventTypes: ["PAYMENT_COMPLETED"],
};

describe("sandbox partner API through the gateway client", () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = await startSandbox({ start: START });
  });
  afterEach(() => sandbox.close());

  it("issues a token valid 24 hours by the sandbox clock", async () => {
    const client = sandboxGatewayClient(sandbox);
    const outcome = await client.partner.token();
    expect(outcome).toMatchObject({ kind: "success", value: { expiredAt: "2026-06-02T00:00:00.000Z" } });
    const token = outcome.kind === "success" ? outcome.value.token : "";
    expect(sandbox.state.partner.verifyToken(token, sandbox.clock.now())?.mid).toBe(TEST_MERCHANT.mid);
  });

  it("refuses a wrong or missing apiKey with AUTH_3000", async () => {
    const client = sandboxGatewayClient(sandbox, { config: { partnerApiKey: "not_the_partner_key" } });
    expect(await client.partner.listWebhooks()).toMatchObject({ kind: "invalid", code: "AUTH_3000" });
    const missing = await callSandbox(sandbox, PARTNER_TOKEN_PATH, { method: "GET" });
    expect(missing).toMatchObject({ status: 401, json: { code: "AUTH_3000", data: null } });
  });

  it("creates, lists, updates and deletes subscriptions", async () => {
    const { partner } = sandboxGatewayClient(sandbox);
    const created = await partner.createWebhook(undefined, SUBSCRIPTION);
    if (created.kind !== "success") throw new Error(`create failed: ${JSON.stringify(created)}`);
    const subscription = created.value;
    expect(subscription).toEqual({
      id: expect.any(String),
      ...SUBSCRIPTION,
      isActive: true,
      createdAt: START.toISOString(),
    });
    expect(await partner.listWebhooks()).toEqual({ kind: "success", value: [subscription] });

    const change = {
      endpointUrl: "https://merchant.example/v2",
      eventTypes: ["PAYMENT_COMPLETED"],
      isActive: false,
    };
    const updated = await partner.updateWebhook(undefined, subscription.id, change);
    expect(updated).toEqual({ kind: "success", value: { ...subscription, ...change } });
    expect(sandbox.state.partner.subscribersOf(TEST_MERCHANT.mid, "PAYMENT_COMPLETED")).toEqual([]);

    expect(await partner.deleteWebhook(undefined, subscription.id)).toEqual({
      kind: "success",
      value: { code: "CMN_0000", message: "Success" },
    });
    expect(await partner.listWebhooks()).toEqual({ kind: "success", value: [] });
    expect(await partner.deleteWebhook(undefined, subscription.id)).toMatchObject({
      kind: "invalid",
      code: "CMN_4004",
    });
    expect(await partner.updateWebhook(undefined, "sbxsub_unknown", change)).toMatchObject({
      kind: "invalid",
      code: "CMN_4004",
    });
  });

  it("refuses another merchant's path with AUTH_3002 and an invalid body with CMN_4000", async () => {
    const counter = countingFetch();
    const { partner } = sandboxGatewayClient(sandbox, { fetchImpl: counter.fetchImpl });
    expect(await partner.listWebhooks("SBXOTHER01")).toMatchObject({ kind: "invalid", code: "AUTH_3002" });
    expect(counter.count(TOKEN_CALL)).toBe(1); // not a token problem: no refresh

    const token = await partner.token();
    const authorization = `Bearer ${token.kind === "success" ? token.value.token : ""}`;
    const reply = await callSandbox(sandbox, WEBHOOKS, {
      body: { endpointUrl: "not a url", eventTypes: ["PAYMENT_COMPLETED"] },
      headers: { authorization },
    });
    expect(reply).toEqual({
      status: 400,
      json: { code: "CMN_4000", message: "Invalid parameter: endpointUrl", data: null },
    });
  });

  it("answers AUTH_3001 once the token has expired by the sandbox clock; the client refreshes once and retries", async () => {
    const counter = countingFetch();
    // The client's clock stays behind: it believes its token is fresh, the sandbox knows it has expired.
    const { partner } = sandboxGatewayClient(sandbox, { fetchImpl: counter.fetchImpl, now: () => START });
    expect(await partner.listWebhooks()).toEqual({ kind: "success", value: [] });
    expect([counter.count(TOKEN_CALL), counter.count(LIST_CALL)]).toEqual([1, 1]);

    await sandbox.clock.advance("PT23H59M59S");
    expect((await partner.listWebhooks()).kind).toBe("success");
    expect([counter.count(TOKEN_CALL), counter.count(LIST_CALL)]).toEqual([1, 2]);

    await sandbox.clock.advance("PT1S");
    expect(await partner.listWebhooks()).toEqual({ kind: "success", value: [] });
    expect(counter.calls.slice(3)).toEqual([LIST_CALL, TOKEN_CALL, LIST_CALL]);
    expect([counter.count(TOKEN_CALL), counter.count(LIST_CALL)]).toEqual([2, 4]);
  });

  it("expires a merchant's tokens on POST /sandbox/partner/tokens/expire", async () => {
    const counter = countingFetch();
    const { partner } = sandboxGatewayClient(sandbox, { fetchImpl: counter.fetchImpl });
    await partner.createWebhook(undefined, SUBSCRIPTION);
    const expired = await callSandbox(sandbox, "/sandbox/partner/tokens/expire");
    expect(expired).toMatchObject({
      status: 200,
      json: { rescode: "0000", mid: TEST_MERCHANT.mid, expired: 1 },
    });
    expect(await partner.listWebhooks()).toMatchObject({ kind: "success", value: [SUBSCRIPTION] });
    expect(counter.calls).toEqual([TOKEN_CALL, `POST ${WEBHOOKS}`, LIST_CALL, TOKEN_CALL, LIST_CALL]);
  });

  it("lets a client on the sandbox clock refresh before expiry, without a refusal", async () => {
    const counter = countingFetch();
    const { partner } = sandboxGatewayClient(sandbox, { fetchImpl: counter.fetchImpl });
    await partner.listWebhooks();
    await sandbox.clock.advance("PT22H30M"); // less than the client's 2-hour refresh window remains
    expect((await partner.listWebhooks()).kind).toBe("success");
    expect(counter.calls).toEqual([TOKEN_CALL, LIST_CALL, TOKEN_CALL, LIST_CALL]);
  });
});
