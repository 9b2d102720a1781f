import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGatewayContext } from "../../../../functions/gateway/context";
import { GatewayRequestError } from "../../../../functions/gateway/errors";
import { createWebhookAdminClient } from "../../../../functions/gateway/resources/webhook-admin";
import {
  webhookInfoResponseSchema,
  webhookRegisterRequestSchema,
  webhookRegisterResponseSchema,
} from "../../../../functions/gateway/schemas/webhook-admin";
import { type RecordingServer, startRecordingServer } from "../../../support/recording-server";

const HOOK_URL = "https://merchant.example/webhooks/gateway";
const AUTHORIZATION = `Basic ${Buffer.from("test-api-key:").toString("base64")}`;

let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function client() {
  const context = createGatewayContext({
    paymentBaseUrl: "http://127.0.0.1:9/unused",
    // A path prefix on the admin address is kept.
    webhookAdminBaseUrl: `${server.url}/admin/`,
    partnerBaseUrl: "http://127.0.0.1:9/unused",
    mid: "TESTMID001",
    apiKey: "test-api-key",
    aesKey: "0".repeat(64),
    readRetries: 1,
    readRetryMinDelayMs: 0,
  });
  return createWebhookAdminClient(context);
}

const registered = (type: unknown) => ({
  rescode: "SUCCESS",
  resmsg: "SUCCESS",
  type: "webhook",
  data: { url: HOOK_URL, type },
});

/** Expects a GatewayRequestError naming `field`, and that nothing reached the server. */
async function expectRejected(call: Promise<unknown>, field: string): Promise<void> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GatewayRequestError);
  expect(error).toMatchObject({ field });
  expect(server.requests).toHaveLength(0);
}

describe("webhook register", () => {
  it("posts url and type with Basic authorization and reads rescode SUCCESS as success", async () => {
    server.respondWith(() => ({ json: registered(["PAYOUT_REMITTANCE_COMPLETE"]) }));
    const outcome = await client().register({ url: HOOK_URL, type: "PAYOUT_REMITTANCE_COMPLETE" });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/admin/v1/api/webhook/register");
    expect(request?.headers.authorization).toBe(AUTHORIZATION);
    expect(JSON.parse(request?.body ?? "")).toEqual({ url: HOOK_URL, type: "PAYOUT_REMITTANCE_COMPLETE" });
    expect(outcome).toEqual({
      kind: "success",
      value: registered(["PAYOUT_REMITTANCE_COMPLETE"]),
    });
  });

  it("also reads the documented 0000 as success", async () => {
    server.respondWith(() => ({
      json: { ...registered(["PAYOUT_SUBMALL_REVIEW_COMPLETE"]), rescode: "0000" },
    }));
    const outcome = await client().register({ url: HOOK_URL, type: "PAYOUT_SUBMALL_REVIEW_COMPLETE" });
    expect(outcome.kind).toBe("success");
  });

  it("rejects the sample's PAYOUT_REVIEW_COMPLETE and CHARGEBACK without sending", async () => {
    await expectRejected(client().register({ url: HOOK_URL, type: "PAYOUT_REVIEW_COMPLETE" }), "type");
    await expectRejected(client().register({ url: HOOK_URL, type: "CHARGEBACK" }), "type");
  });

  it("rejects a url that is not http(s) or longer than 255 characters without sending", async () => {
    await expectRejected(
      client().register({ url: "ftp://merchant.example/hook", type: "PAYOUT_REMITTANCE_COMPLETE" }),
      "url",
    );
    const long = `https://merchant.example/${"a".repeat(240)}`;
    await expectRejected(client().register({ url: long, type: "PAYOUT_REMITTANCE_COMPLETE" }), "url");
  });

  it("is a mutation: a 503 leaves its outcome unknown, never retried", async () => {
    server.respondWith(() => ({ status: 503, text: "busy" }));
    const outcome = await client().register({ url: HOOK_URL, type: "PAYOUT_REMITTANCE_COMPLETE" });
    expect(outcome).toMatchObject({ kind: "unknown" });
    expect(server.requests).toHaveLength(1);
  });

  it("reports a failure rescode as declined", async () => {
    server.respondWith(() => ({
      json: { rescode: "FAIL", resmsg: "not allowed", type: "webhook", data: null },
    }));
    const outcome = await client().register({ url: HOOK_URL, type: "PAYOUT_REMITTANCE_COMPLETE" });
    expect(outcome).toEqual({ kind: "declined", code: "FAIL", message: "not allowed" });
  });

  it("on the wire, refuses unknown keys and a missing url", () => {
    const issueField = (input: unknown) =>
      webhookRegisterRequestSchema.safeParse(input, { reportInput: false }).error?.issues[0]?.path.join(".");
    expect(issueField({ url: HOOK_URL, type: "PAYOUT_REMITTANCE_COMPLETE", mid: "x" })).toBe("");
    expect(issueField({ type: "PAYOUT_REMITTANCE_COMPLETE" })).toBe("url");
  });
});

describe("webhook info", () => {
  it("GETs without a body and exposes a single registered type as a list", async () => {
    server.respondWith(() => ({ json: registered("PAYOUT_SUBMALL_REVIEW_COMPLETE") }));
    const outcome = await client().info();
    const [request] = server.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url).toBe("/admin/v1/api/webhook/info");
    expect(request?.headers.authorization).toBe(AUTHORIZATION);
    expect(request?.headers["content-type"]).toBeUndefined();
    expect(request?.body).toBe("");
    if (outcome.kind !== "success") throw new Error(`expected success, got ${outcome.kind}`);
    expect(outcome.value.data).toEqual({ url: HOOK_URL, type: ["PAYOUT_SUBMALL_REVIEW_COMPLETE"] });
  });

  it("exposes data null (or absent) as null when no webhook is configured", async () => {
    server.respondWith(() => ({
      json: { rescode: "SUCCESS", resmsg: "SUCCESS", type: "webhook", data: null },
    }));
    const outcome = await client().info();
    expect(outcome).toMatchObject({ kind: "success", value: { data: null } });
    expect(webhookInfoResponseSchema.parse({ rescode: "0000", type: "webhook" }).data).toBeNull();
  });

  it("is a read: retried once after a 503", async () => {
    let calls = 0;
    server.respondWith(() => {
      calls += 1;
      return calls === 1
        ? { status: 503, text: "busy" }
        : { json: registered(["PAYOUT_REMITTANCE_COMPLETE"]) };
    });
    const outcome = await client().info();
    expect(outcome.kind).toBe("success");
    expect(server.requests).toHaveLength(2);
  });
});

describe("webhook management responses", () => {
  it("keep the registered types as an array and require data on register", () => {
    const parsed = webhookRegisterResponseSchema.parse(
      registered(["PAYOUT_REMITTANCE_COMPLETE", "PAYOUT_SUBMALL_REVIEW_COMPLETE"]),
    );
    expect(parsed.data.type).toEqual(["PAYOUT_REMITTANCE_COMPLETE", "PAYOUT_SUBMALL_REVIEW_COMPLETE"]);
    expect(webhookRegisterResponseSchema.safeParse({ ...registered([]), data: null }).success).toBe(false);
  });
});
