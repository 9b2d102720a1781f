import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayRequestError } from "../../../../functions/gateway/errors";
import { verifyWebhook } from "../../../../functions/gateway/webhook-signature";
import { type Sandbox, startSandbox } from "../../../../sandbox/server";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import { type RecordingServer, startRecordingServer } from "../../../support/recording-server";
import { callSandbox, sandboxGatewayClient } from "../../../support/sandbox-gateway";

const START = new Date("2026-06-01T00:00:00.000Z");
const ACK = { json: { rescode: "0000", resmsg: "Success" } };

describe("sandbox webhook management API through the gateway client", () => {
  let receiver: RecordingServer;
  let sandbox: Sandbox;

  beforeAll(async () => {
    receiver = await startRecordingServer(() => ACK);
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    receiver.reset();
    sandbox = await startSandbox({ start: START });
  });
  afterEach(() => sandbox.close());

  it("answers data null before anything is registered", async () => {
    const client = sandboxGatewayClient(sandbox);
    expect(await client.webhooks.info()).toEqual({
      kind: "success",
      value: { rescode: "SUCCESS", resmsg: "SUCCESS", type: "webhook", data: null },
    });
  });

  it("registers both payout types on one URL, adding the second type to the list", async () => {
    const client = sandboxGatewayClient(sandbox);
    const url = `${receiver.url}/payout`;
    expect(await client.webhooks.register({ url, type: "PAYOUT_SUBMALL_REVIEW_COMPLETE" })).toMatchObject({
      kind: "success",
      value: { type: "webhook", data: { url, type: ["PAYOUT_SUBMALL_REVIEW_COMPLETE"] } },
    });
    const revision = sandbox.state.revision;
    const second = await client.webhooks.register({ url, type: "PAYOUT_REMITTANCE_COMPLETE" });
    const both = ["PAYOUT_SUBMALL_REVIEW_COMPLETE", "PAYOUT_REMITTANCE_COMPLETE"];
    expect(second).toMatchObject({ kind: "success", value: { data: { url, type: both } } });
    expect(sandbox.state.revision).toBe(revision + 1);
    expect(await client.webhooks.info()).toMatchObject({
      kind: "success",
      value: { data: { url, type: both } },
    });
  });

  it("refuses other types with EC00 on type (the client refuses them before sending)", async () => {
    for (const type of ["CHARGEBACK", "PAYOUT_REVIEW_COMPLETE"]) {
      const reply = await callSandbox(sandbox, "/v1/api/webhook/register", {
        body: { url: `${receiver.url}/payout`, type },
      });
      expect(reply).toEqual({ status: 400, json: { rescode: "EC00", resmsg: "Invalid parameter: type" } });
    }
    const client = sandboxGatewayClient(sandbox);
    await expect(client.webhooks.register({ url: `${receiver.url}/x`, type: "CHARGEBACK" })).rejects.toThrow(
      GatewayRequestError,
    );
    expect(await client.webhooks.info()).toMatchObject({ kind: "success", value: { data: null } });
  });

  it("refuses a request without the merchant's credentials", async () => {
    const reply = await callSandbox(sandbox, "/v1/api/webhook/info", {
      method: "GET",
      headers: { authorization: "" },
    });
    expect(reply).toMatchObject({ status: 401, json: { rescode: "EC1000" } });
  });

  describe("sandbox payout webhook trigger", () => {
    it("sends a signed payout webhook to the registered URL when the type is registered", async () => {
      const url = `${receiver.url}/payout`;
      await sandboxGatewayClient(sandbox).webhooks.register({ url, type: "PAYOUT_REMITTANCE_COMPLETE" });
      const data = { payout_id: "PO-1", status: "COMPLETED" };
      const reply = await callSandbox(sandbox, "/sandbox/webhooks/payout", {
        body: { type: "PAYOUT_REMITTANCE_COMPLETE", data },
      });
      expect(reply).toMatchObject({ status: 200, json: { rescode: "0000", sent: true, webhook_url: url } });
      await sandbox.deliveries.settled();
      const [request] = receiver.requests;
      if (!request) throw new Error("no webhook received");
      expect(JSON.parse(request.body)).toEqual({
        rescode: "0000",
        resmsg: "Success.",
        type: "PAYOUT_REMITTANCE_COMPLETE",
        data,
      });
      const verification = verifyWebhook({
        rawBody: request.body,
        headers: request.headers,
        secrets: [TEST_MERCHANT.webhookSecret],
        now: sandbox.clock.now(),
      });
      expect(verification).toEqual({ ok: true });
    });

    it("sends nothing for a type that is not registered, and refuses unknown types", async () => {
      await sandboxGatewayClient(sandbox).webhooks.register({
        url: `${receiver.url}/payout`,
        type: "PAYOUT_REMITTANCE_COMPLETE",
      });
      const reply = await callSandbox(sandbox, "/sandbox/webhooks/payout", {
        body: { type: "PAYOUT_SUBMALL_REVIEW_COMPLETE" },
      });
      expect(reply).toMatchObject({ status: 200, json: { sent: false, webhook_url: null } });
      const unknown = await callSandbox(sandbox, "/sandbox/webhooks/payout", {
        body: { type: "CHARGEBACK" },
      });
      expect(unknown).toMatchObject({
        status: 400,
        json: { rescode: "EC00", resmsg: "Invalid parameter: type" },
      });
      await sandbox.deliveries.settled();
      expect(receiver.requests).toEqual([]);
    });

    it("fills data with the mid and the event date when none is given", async () => {
      await sandboxGatewayClient(sandbox).webhooks.register({
        url: `${receiver.url}/payout`,
        type: "PAYOUT_SUBMALL_REVIEW_COMPLETE",
      });
      await callSandbox(sandbox, "/sandbox/webhooks/payout", {
        body: { type: "PAYOUT_SUBMALL_REVIEW_COMPLETE" },
      });
      await sandbox.deliveries.settled();
      expect(receiver.requests.map((request) => JSON.parse(request.body).data)).toEqual([
        { mid: TEST_MERCHANT.mid, event_date: "20260601090000" },
      ]);
    });
  });
});
