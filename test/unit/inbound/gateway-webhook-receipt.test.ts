import { describe, expect, it } from "vitest";
import type { IntakeMessage } from "../../../functions/core/ports/intake-messages";
import { formatTransmissionTime, signWebhookBody } from "../../../functions/gateway/webhook-signature";
import {
  type GatewayWebhookDeps,
  receiveGatewayWebhook,
  WEBHOOK_DEDUP_TTL_MS,
  webhookDedupKey,
} from "../../../functions/inbound/gateway-webhook-receipt";

const NOW = new Date("2027-03-01T10:00:00.000Z");
const SECRET = "unit_test_webhook_secret";
const NEXT = "unit_test_webhook_secret_next";
const ACK = { rescode: "0000", resmsg: "Success" };
const FAIL = { rescode: "XXXX", resmsg: "signature_fail" };
const BODY = Buffer.from(
  JSON.stringify({
    rescode: "0000",
    resmsg: "Success",
    type: "CHARGEBACK",
    data: { transaction_id: "T1", order_id: "s-1-0" },
  }),
);

function fakes(options: { failSends?: number } = {}) {
  const records = new Map<string, Date>();
  const sent: IntakeMessage[] = [];
  let failures = options.failSends ?? 0;
  const deps: GatewayWebhookDeps = {
    clock: { now: () => NOW },
    secrets: async () => [SECRET, NEXT],
    repository: {
      async recordOnce(key, expiresAt) {
        if (records.has(key)) return false;
        records.set(key, expiresAt);
        return true;
      },
      async forgetOnce(key) {
        records.delete(key);
      },
    },
    queue: {
      async send(message) {
        if (failures > 0) {
          failures -= 1;
          throw new Error("queue unavailable");
        }
        sent.push(message);
      },
    },
  };
  return { deps, records, sent };
}

const headers = (body: Buffer, secret = SECRET, at = NOW) => ({
  "service-webhook-signature": signWebhookBody(body, secret),
  "service-webhook-transmission-time": formatTransmissionTime(at, 540),
});

describe("receiveGatewayWebhook", () => {
  it("accepts a signed, fresh delivery once: queued with its ids, remembered past the re-sends", async () => {
    const { deps, records, sent } = fakes();
    const receipt = await receiveGatewayWebhook({ rawBody: BODY, headers: headers(BODY) }, deps);
    expect(receipt).toEqual({ kind: "accepted", reply: ACK });
    expect(sent).toEqual([
      {
        kind: "gateway",
        type: "CHARGEBACK",
        transaction_id: "T1",
        order_id: "s-1-0",
        received_at: NOW.toISOString(),
      },
    ]);
    expect(records.get(webhookDedupKey(BODY))).toEqual(new Date(NOW.getTime() + WEBHOOK_DEDUP_TTL_MS));
    expect(WEBHOOK_DEDUP_TTL_MS).toBeGreaterThan(4 * 3_600_000);

    const resent = { rawBody: BODY, headers: headers(BODY, SECRET, new Date(NOW.getTime() - 60_000)) };
    expect(await receiveGatewayWebhook(resent, deps)).toEqual({ kind: "duplicate", reply: ACK });
    expect(sent).toHaveLength(1);
  });

  it("accepts the next secret of a rotation", async () => {
    const { deps, sent } = fakes();
    expect(await receiveGatewayWebhook({ rawBody: BODY, headers: headers(BODY, NEXT) }, deps)).toMatchObject({
      kind: "accepted",
    });
    expect(sent).toHaveLength(1);
  });

  it.each([
    [
      "a tampered body",
      { rawBody: Buffer.from(BODY.toString().replace("T1", "T2")), headers: headers(BODY) },
      "signature_mismatch",
    ],
    [
      "an unknown secret",
      { rawBody: BODY, headers: headers(BODY, "another_secret_entirely") },
      "signature_mismatch",
    ],
    [
      "no signature",
      { rawBody: BODY, headers: { "service-webhook-transmission-time": formatTransmissionTime(NOW) } },
      "missing_signature",
    ],
    [
      "a stale time",
      { rawBody: BODY, headers: headers(BODY, SECRET, new Date(NOW.getTime() - 301_000)) },
      "stale",
    ],
  ])("rejects %s with signature_fail, recording and queuing nothing", async (_name, delivery, reason) => {
    const { deps, records, sent } = fakes();
    expect(await receiveGatewayWebhook(delivery, deps)).toEqual({ kind: "rejected", reply: FAIL, reason });
    expect(records.size).toBe(0);
    expect(sent).toEqual([]);
  });

  it("verifies the exact bytes: a re-serialised body of the same JSON does not pass", async () => {
    const { deps } = fakes();
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
    expect(await receiveGatewayWebhook({ rawBody: reformatted, headers: headers(BODY) }, deps)).toMatchObject(
      {
        kind: "rejected",
      },
    );
  });

  it("acknowledges a signed but unreadable body without queuing it", async () => {
    const { deps, sent } = fakes();
    const body = Buffer.from("not json");
    expect(await receiveGatewayWebhook({ rawBody: body, headers: headers(body) }, deps)).toEqual({
      kind: "unreadable",
      reply: ACK,
      reason: "body is not JSON",
    });
    expect(sent).toEqual([]);
  });

  it("forgets the delivery when the queue refuses it, so the next re-send is taken", async () => {
    const { deps, records, sent } = fakes({ failSends: 1 });
    const delivery = { rawBody: BODY, headers: headers(BODY) };
    await expect(receiveGatewayWebhook(delivery, deps)).rejects.toThrow("queue unavailable");
    expect(records.size).toBe(0);
    expect(await receiveGatewayWebhook(delivery, deps)).toMatchObject({ kind: "accepted" });
    expect(sent).toHaveLength(1);
  });
});
