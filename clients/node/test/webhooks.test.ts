import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookSignatureError } from "../src/webhooks";

// The client's webhook verifier on deliveries signed both ways the API signs them: Standard Webhooks (signed here by
// the spec's own library) and the billing-signature of endpoints registered before it.

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const EVENT = {
  event_id: "6dc263bb-2c8e-4954-9eec-d72397a1ee85",
  type: "charge.succeeded",
  occurred_at: "x",
};
const BODY = JSON.stringify(EVENT);

function standardHeaders(body: string, at = new Date()) {
  return {
    "webhook-id": EVENT.event_id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(SECRET).sign(EVENT.event_id, at, body),
  };
}

function billingSignature(body: string, secret: string, at = new Date()) {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
}

describe("verifyWebhook", () => {
  it("answers the event of a Standard Webhooks delivery, its headers as Node or the Fetch API give them", () => {
    const headers = standardHeaders(BODY);
    expect(verifyWebhook(BODY, headers, SECRET)).toEqual(EVENT);
    expect(verifyWebhook(Buffer.from(BODY), new Headers(headers), SECRET)).toEqual(EVENT);
    const shouted = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toUpperCase(), [value]]),
    );
    expect(verifyWebhook(BODY, shouted, SECRET)).toEqual(EVENT);
  });

  it("refuses an altered body, another id or key, a stale time, or no signature at all", () => {
    const headers = standardHeaders(BODY);
    const refusals: [string | Buffer, Record<string, string>, string][] = [
      [`${BODY} `, headers, SECRET],
      [BODY, { ...headers, "webhook-id": "e2" }, SECRET],
      [BODY, headers, `whsec_${Buffer.from("another key").toString("base64")}`],
      [BODY, standardHeaders(BODY, new Date(Date.now() - 301_000)), SECRET],
      [BODY, {}, SECRET],
    ];
    for (const [body, given, secret] of refusals)
      expect(() => verifyWebhook(body, given, secret)).toThrow(WebhookSignatureError);
  });

  it("verifies the billing-signature of an endpoint registered before Standard Webhooks", () => {
    const legacy = "whsec_Jq8v2Yx0cN4mT6pR1sW9uZ3bE5gK7hL2aD4f-8iO_nM";
    const header = billingSignature(BODY, legacy);
    expect(verifyWebhook(BODY, { "billing-signature": header }, legacy)).toEqual(EVENT);
    expect(() => verifyWebhook(`${BODY} `, { "billing-signature": header }, legacy)).toThrow(/No matching/);
    const stale = billingSignature(BODY, legacy, new Date(Date.now() - 301_000));
    expect(() => verifyWebhook(BODY, { "billing-signature": stale }, legacy)).toThrow(/too far/);
  });
});
