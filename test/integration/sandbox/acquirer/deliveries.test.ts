import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseTransmissionTime, verifyWebhook } from "../../../../functions/gateway/webhook-signature";
import {
  STATUS_URL_MAX_RESENDS,
  STATUS_URL_RESEND_INTERVAL_MS,
} from "../../../../sandbox/acquirer/deliveries";
import { type Sandbox, startSandbox } from "../../../../sandbox/server";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import { type RecordingServer, startRecordingServer } from "../../../support/recording-server";

const START = new Date("2026-06-01T00:00:00.000Z");
const ACK = { json: { rescode: "0000", resmsg: "Success" } };
const NACK = { json: { rescode: "XXXX", resmsg: "signature_fail" } };
/** A merchant's text answers to status_url, as the real gateway expects them. */
const STATUS_ACK = { text: "rescode=0000&resmsg=Success" };
const STATUS_REFUSED = { status: 400, text: "rescode=EC00&resmsg=Invalid+parameter" };
const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

describe("outbound deliveries", () => {
  let merchant: RecordingServer;
  let sandbox: Sandbox;

  beforeAll(async () => {
    merchant = await startRecordingServer();
  });
  afterAll(() => merchant.close());
  beforeEach(async () => {
    merchant.reset();
    merchant.respondWith(() => ACK);
    sandbox = await startSandbox({ start: START, utcOffsetMinutes: 540, deliveryTimeoutMs: 500 });
  });
  afterEach(() => sandbox.close());

  it("posts a status_url result in the real and short forms as a form body to the URL as given, and logs it", async () => {
    merchant.respondWith(() => STATUS_ACK);
    const params = { order_id: "o 1", rescode: "0000" };
    await sandbox.deliveries.statusUrl(`${merchant.url}/status?tenant=a`, params, "real");
    await sandbox.deliveries.statusUrl(`${merchant.url}/status`, params, "short");
    expect(
      merchant.requests.map((request) => [
        request.method,
        request.url,
        request.headers["content-type"],
        request.body,
      ]),
    ).toEqual([
      ["POST", "/status?tenant=a", FORM_CONTENT_TYPE, "order_id=o+1&rescode=0000"],
      ["POST", "/status", FORM_CONTENT_TYPE, "order_id=o+1&rescode=0000"],
    ]);
    expect(sandbox.deliveries.entries()).toEqual([
      expect.objectContaining({
        seq: 1,
        kind: "status_url",
        method: "POST",
        url: `${merchant.url}/status?tenant=a`,
        body: "order_id=o+1&rescode=0000",
        form: "real",
        attempt: 1,
        duplicate: false,
        at: START.toISOString(),
        status: 200,
        rescode: "0000",
        acknowledged: true,
      }),
      expect.objectContaining({ seq: 2, method: "POST", form: "short", acknowledged: true }),
    ]);
  });

  it("calls status_url in the seed's form as a GET with the parameters as a query string", async () => {
    await sandbox.deliveries.statusUrl(
      `${merchant.url}/status?tenant=a`,
      { order_id: "o 1", rescode: "0000" },
      "seed",
    );
    expect(merchant.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ["GET", "/status?tenant=a&order_id=o+1&rescode=0000", ""],
    ]);
    const [entry] = sandbox.deliveries.entries();
    expect(entry).toMatchObject({
      method: "GET",
      url: `${merchant.url}/status?tenant=a&order_id=o+1&rescode=0000`,
      form: "seed",
      acknowledged: true,
    });
    expect(entry).not.toHaveProperty("body");
  });

  it("re-sends a status_url result not answered rescode 0000 on the sandbox clock, a bounded number of times", async () => {
    merchant.respondWith(() => STATUS_REFUSED);
    await sandbox.deliveries.statusUrl(`${merchant.url}/status`, { n: "1" }, "real");
    expect(merchant.requests).toHaveLength(1);
    await sandbox.clock.advance(STATUS_URL_RESEND_INTERVAL_MS - 1);
    expect(merchant.requests).toHaveLength(1);
    await sandbox.clock.advance(1);
    expect(merchant.requests).toHaveLength(2);
    await sandbox.clock.advance("P1D");
    expect(merchant.requests).toHaveLength(1 + STATUS_URL_MAX_RESENDS);
    expect(
      new Set(merchant.requests.map((request) => `${request.method} ${request.url} ${request.body}`)),
    ).toEqual(new Set(["POST /status n=1"]));
    const attempts = sandbox.deliveries.entries("status_url");
    expect(attempts.map((entry) => [entry.deliveryId, entry.attempt, entry.at, entry.rescode])).toEqual(
      Array.from({ length: 1 + STATUS_URL_MAX_RESENDS }, (_, index) => [
        1,
        index + 1,
        new Date(START.getTime() + index * STATUS_URL_RESEND_INTERVAL_MS).toISOString(),
        "EC00",
      ]),
    );
    expect(sandbox.clock.pending()).toEqual([]);
  });

  it("re-sends a status_url nobody answers", async () => {
    await sandbox.deliveries.statusUrl("http://127.0.0.1:9/closed", {}, "real");
    await sandbox.clock.advance("P1D");
    const attempts = sandbox.deliveries.entries("status_url");
    expect(attempts).toHaveLength(1 + STATUS_URL_MAX_RESENDS);
    expect(attempts.every((entry) => entry.error !== undefined && !entry.acknowledged)).toBe(true);
  });

  it("stops re-sending a status_url once answered rescode=0000&resmsg=Success", async () => {
    let calls = 0;
    merchant.respondWith(() => (++calls === 1 ? STATUS_REFUSED : STATUS_ACK));
    await sandbox.deliveries.statusUrl(`${merchant.url}/status`, { n: "1" }, "real");
    await sandbox.clock.advance("P1D");
    expect(
      sandbox.deliveries.entries().map((entry) => [entry.attempt, entry.rescode, entry.acknowledged]),
    ).toEqual([
      [1, "EC00", false],
      [2, "0000", true],
    ]);
  });

  it("takes a JSON {rescode: 0000} answer to status_url as well (our older answer): nothing is re-sent", async () => {
    await sandbox.deliveries.statusUrl(`${merchant.url}/status`, { n: "1" }, "real");
    expect(sandbox.deliveries.entries()).toMatchObject([{ rescode: "0000", acknowledged: true }]);
    expect(sandbox.clock.pending()).toEqual([]);
    await sandbox.clock.advance("P1D");
    expect(merchant.requests).toHaveLength(1);
  });

  it("calls status_url twice under duplicateStatusUrlRate, for the route it is set on", async () => {
    sandbox.faults.configure({ routes: { "payments.window": { duplicateStatusUrlRate: 1 } } });
    await sandbox.deliveries
      .forRoute("payments.other")
      .statusUrl(`${merchant.url}/status`, { n: "1" }, "real");
    await sandbox.deliveries
      .forRoute("payments.window")
      .statusUrl(`${merchant.url}/status`, { n: "2" }, "real");
    expect(merchant.requests.map((request) => request.body)).toEqual(["n=1", "n=2", "n=2"]);
    const second = sandbox.deliveries.entries().slice(1);
    expect(second.map((entry) => [entry.deliveryId, entry.duplicate])).toEqual([
      [2, false],
      [2, true],
    ]);
    expect(sandbox.faults.counters().byRoute["payments.window"]?.duplicateStatusUrl).toBe(1);
  });

  it("signs webhooks: Base64 HMAC-SHA256 of the raw body and the transmission time of the sandbox clock", async () => {
    const body = {
      rescode: "0000",
      resmsg: "Success",
      type: "CHARGEBACK",
      data: { transaction_id: "SBXT00000000000000000001" },
    };
    await sandbox.deliveries.webhook(TEST_MERCHANT, `${merchant.url}/webhooks/gateway`, body);
    const [request] = merchant.requests;
    if (!request) throw new Error("no webhook received");
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(request.body)).toEqual(body);
    const expected = createHmac("sha256", TEST_MERCHANT.webhookSecret).update(request.body).digest("base64");
    expect(request.headers["eximbay-webhook-signature"]).toBe(expected);
    expect(request.headers["eximbay-webhook-transmission-time"]).toBe("2026-06-01T09:00:00.000+09:00");
    expect(parseTransmissionTime(String(request.headers["eximbay-webhook-transmission-time"]))).toEqual(
      START,
    );
    expect(
      verifyWebhook({
        rawBody: request.body,
        headers: request.headers,
        secrets: [TEST_MERCHANT.webhookSecret],
        now: START,
      }),
    ).toEqual({ ok: true });
  });

  it("re-sends an unacknowledged webhook hourly by the sandbox clock, 3 times at most", async () => {
    merchant.respondWith(() => NACK);
    await sandbox.deliveries.webhook(TEST_MERCHANT, `${merchant.url}/hook`, { type: "CHARGEBACK" });
    expect(merchant.requests).toHaveLength(1);
    await sandbox.clock.advance("PT59M");
    expect(merchant.requests).toHaveLength(1);
    await sandbox.clock.advance("PT1M");
    expect(merchant.requests).toHaveLength(2);
    await sandbox.clock.advance("P1D");
    expect(merchant.requests).toHaveLength(4);
    const attempts = sandbox.deliveries.entries("webhook");
    expect(attempts.map((entry) => [entry.attempt, entry.at, entry.rescode, entry.acknowledged])).toEqual([
      [1, "2026-06-01T00:00:00.000Z", "XXXX", false],
      [2, "2026-06-01T01:00:00.000Z", "XXXX", false],
      [3, "2026-06-01T02:00:00.000Z", "XXXX", false],
      [4, "2026-06-01T03:00:00.000Z", "XXXX", false],
    ]);
    const signatures = new Set(
      merchant.requests.map((request) => request.headers["eximbay-webhook-signature"]),
    );
    const times = new Set(
      merchant.requests.map((request) => request.headers["eximbay-webhook-transmission-time"]),
    );
    expect([signatures.size, times.size]).toEqual([1, 4]);
    expect(sandbox.clock.pending()).toEqual([]);
  });

  it("stops re-sending once acknowledged; a reply that is not JSON is no acknowledgement", async () => {
    let calls = 0;
    merchant.respondWith(() => (++calls === 1 ? { text: "OK" } : ACK));
    await sandbox.deliveries.webhook(TEST_MERCHANT, `${merchant.url}/hook`, { type: "CHARGEBACK" });
    await sandbox.clock.advance("P1D");
    expect(sandbox.deliveries.entries().map((entry) => [entry.attempt, entry.acknowledged])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("holds a webhook under outOfOrderWebhookRate and sends it after the next one", async () => {
    sandbox.faults.configure({ outOfOrderWebhookRate: 1 });
    const url = `${merchant.url}/partner`;
    await sandbox.deliveries.partnerEvent(url, { id: "evt-1" });
    expect(merchant.requests).toHaveLength(0);
    await sandbox.deliveries.partnerEvent(url, { id: "evt-2" });
    await sandbox.deliveries.partnerEvent(url, { id: "evt-3" }); // held again
    await sandbox.deliveries.flushHeld();
    expect(merchant.requests.map((request) => JSON.parse(request.body).id)).toEqual([
      "evt-2",
      "evt-1",
      "evt-3",
    ]);
    expect(
      merchant.requests.every((request) => request.headers["eximbay-webhook-signature"] === undefined),
    ).toBe(true);
    expect(sandbox.faults.counters().total.outOfOrderWebhook).toBe(2);
  });

  it("posts recurring notifications as JSON", async () => {
    await sandbox.deliveries.recurringNoti(`${merchant.url}/recurring`, {
      recurring_id: "SBXRC000000000000001",
    });
    expect(merchant.requests.map((request) => [request.method, request.url, request.body])).toEqual([
      ["POST", "/recurring", '{"recurring_id":"SBXRC000000000000001"}'],
    ]);
    expect(sandbox.deliveries.entries("recurring_noti")).toHaveLength(1);
  });

  it("logs network failures, timeouts and bad URLs without throwing", async () => {
    merchant.respondWith(() => new Promise((resolve) => setTimeout(() => resolve(ACK), 2000)));
    await expect(sandbox.deliveries.statusUrl(`${merchant.url}/slow`, {}, "real")).resolves.toBeUndefined();
    await expect(
      sandbox.deliveries.statusUrl("http://127.0.0.1:9/closed", {}, "seed"),
    ).resolves.toBeUndefined();
    await expect(sandbox.deliveries.recurringNoti("not a url", {})).resolves.toBeUndefined();
    const entries = sandbox.deliveries.entries();
    expect(entries.map((entry) => entry.acknowledged)).toEqual([false, false, false]);
    expect(entries[0]?.error).toMatch(/Timeout|abort/i);
    expect(entries.every((entry) => entry.error !== undefined && entry.status === undefined)).toBe(true);
  });

  it("shows the log on GET /sandbox/deliveries", async () => {
    await sandbox.deliveries.statusUrl(`${merchant.url}/status`, { a: "1" }, "real");
    const reply = await (await fetch(`${sandbox.url}/sandbox/deliveries?kind=status_url`)).json();
    expect(reply).toMatchObject({
      rescode: "0000",
      deliveries: [{ kind: "status_url", method: "POST", body: "a=1", form: "real", status: 200 }],
    });
  });
});
