import { describe, expect, it } from "vitest";
import {
  formatTransmissionTime,
  parseTransmissionTime,
  signWebhookBody,
  verifyWebhook,
  type WebhookHeaders,
  webhookAckReply,
  webhookHeaderNames,
  webhookSignatureFailReply,
} from "../../../functions/gateway/webhook-signature";

const BODY = '{"type":"chargeback","data":{"transaction_id":"TX0000000000000000000001"}}';
const CURRENT = "whsec-test-current";
const NEXT = "whsec-test-next";
const NOW = new Date("2026-11-22T01:15:30.123Z");

// Computed once with: printf '%s' "$BODY" | openssl dgst -sha256 -hmac whsec-test-current -binary | base64
const BODY_SIGNATURE = "qDfj4+Uvhz7irsfghDVRd3FdDRAnfiz/5FpSKlC922c=";

function headersFor(
  body: string | Buffer,
  {
    secret = CURRENT,
    sentAt = NOW,
    prefix = "service",
  }: { secret?: string; sentAt?: Date; prefix?: string } = {},
): Record<string, string> {
  const names = webhookHeaderNames(prefix);
  return {
    [names.signature]: signWebhookBody(body, secret),
    [names.transmissionTime]: formatTransmissionTime(sentAt, 540),
  };
}

function verify(
  headers: WebhookHeaders,
  rawBody: string | Buffer = BODY,
  secrets: readonly string[] = [CURRENT],
) {
  return verifyWebhook({ rawBody, headers, secrets, now: NOW });
}

const shifted = (ms: number) => new Date(NOW.getTime() + ms);

describe("signWebhookBody", () => {
  it("matches a vector computed with the openssl CLI", () => {
    expect(signWebhookBody(BODY, CURRENT)).toBe(BODY_SIGNATURE);
    // printf '%s' 'héllo' | openssl dgst -sha256 -hmac whsec-test-current -binary | base64 (UTF-8 bytes)
    expect(signWebhookBody("héllo", CURRENT)).toBe("qLPwFe26PvT3qfKH8EIv7F+j6zDcVjJFS+t88yM6Q78=");
  });

  it("gives the same signature for a string body and its UTF-8 bytes", () => {
    expect(signWebhookBody(Buffer.from(BODY, "utf8"), CURRENT)).toBe(BODY_SIGNATURE);
  });
});

describe("verifyWebhook", () => {
  it("accepts a correctly signed, fresh delivery", () => {
    expect(verify(headersFor(BODY))).toEqual({ ok: true });
  });

  it("accepts the literal known-answer signature", () => {
    const headers = {
      "service-webhook-signature": BODY_SIGNATURE,
      "service-webhook-transmission-time": "2026-11-22T10:15:30.123+09:00",
    };
    expect(verify(headers)).toEqual({ ok: true });
  });

  it("verifies a Buffer body like the equal string", () => {
    expect(verify(headersFor(BODY), Buffer.from(BODY, "utf8"))).toEqual({ ok: true });
    expect(verify(headersFor(Buffer.from(BODY, "utf8")), BODY)).toEqual({ ok: true });
  });

  it("rejects a body with one byte changed", () => {
    const tampered = Buffer.from(BODY, "utf8");
    tampered[10] = (tampered[10] ?? 0) ^ 0x01;
    expect(verify(headersFor(BODY), tampered)).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("rejects a body that differs only in whitespace (the raw bytes are signed, not the JSON)", () => {
    expect(verify(headersFor(BODY), JSON.stringify(JSON.parse(BODY), null, 1))).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("rejects a tampered signature", () => {
    const headers = headersFor(BODY);
    const signature = headers["service-webhook-signature"] ?? "";
    const flipped = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
    expect(verify({ ...headers, "service-webhook-signature": flipped })).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("rejects signatures that are not the Base64 of a 32-byte MAC", () => {
    const headers = headersFor(BODY);
    for (const bad of [
      BODY_SIGNATURE.slice(0, -4),
      `${BODY_SIGNATURE}AAAA`,
      "not base64!",
      "qDfj4-Uvhz7irsfghDVRd3FdDRAnfiz_5FpSKlC922c",
    ]) {
      expect(verify({ ...headers, "service-webhook-signature": bad })).toEqual({
        ok: false,
        reason: "signature_mismatch",
      });
    }
  });

  it("accepts any of the active secrets during a rotation", () => {
    const signedWithNext = headersFor(BODY, { secret: NEXT });
    expect(verify(signedWithNext, BODY, [CURRENT, NEXT])).toEqual({ ok: true });
    expect(verify(headersFor(BODY), BODY, [CURRENT, NEXT])).toEqual({ ok: true });
    expect(verify(signedWithNext, BODY, [CURRENT])).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(verify(headersFor(BODY, { secret: "whsec-test-retired" }), BODY, [CURRENT, NEXT])).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("rejects a transmission time more than 300 s away from now, either side", () => {
    for (const offset of [300_001, -300_001, 3_600_000, -86_400_000]) {
      expect(verify(headersFor(BODY, { sentAt: shifted(offset) }))).toEqual({ ok: false, reason: "stale" });
    }
  });

  it("accepts a transmission time just inside the window, and at its edge", () => {
    for (const offset of [299_999, -299_999, 300_000, -300_000, 0]) {
      expect(verify(headersFor(BODY, { sentAt: shifted(offset) }))).toEqual({ ok: true });
    }
  });

  it("honours a custom tolerance", () => {
    const headers = headersFor(BODY, { sentAt: shifted(61_000) });
    expect(
      verifyWebhook({ rawBody: BODY, headers, secrets: [CURRENT], now: NOW, toleranceSeconds: 60 }),
    ).toEqual({
      ok: false,
      reason: "stale",
    });
    expect(
      verifyWebhook({ rawBody: BODY, headers, secrets: [CURRENT], now: NOW, toleranceSeconds: 62 }),
    ).toEqual({
      ok: true,
    });
  });

  it("rejects a malformed transmission time", () => {
    const good = headersFor(BODY);
    for (const time of [
      "2026-11-22T01:15:30Z",
      "2026-11-22T01:15:30.123",
      "2026-11-22 01:15:30.123Z",
      "2026-11-22T01:15:30.123456Z",
      "2026-11-22T01:15:30.123+0900",
      "2026-11-22T01:15:30.123+19:00",
      "2026-02-30T01:15:30.123Z",
      "2026-11-22T24:00:00.000Z",
      "Sun, 22 Nov 2026 01:15:30 GMT",
      String(NOW.getTime()),
    ]) {
      expect(verify({ ...good, "service-webhook-transmission-time": time }), time).toEqual({
        ok: false,
        reason: "bad_timestamp",
      });
    }
  });

  it("reports the missing header", () => {
    const { "service-webhook-signature": signature, "service-webhook-transmission-time": time } =
      headersFor(BODY);
    expect(verify({})).toEqual({ ok: false, reason: "missing_signature" });
    expect(verify({ "service-webhook-transmission-time": time })).toEqual({
      ok: false,
      reason: "missing_signature",
    });
    expect(verify({ "service-webhook-signature": signature })).toEqual({
      ok: false,
      reason: "missing_timestamp",
    });
    expect(verify({ "service-webhook-signature": "  ", "service-webhook-transmission-time": time })).toEqual({
      ok: false,
      reason: "missing_signature",
    });
    expect(
      verify({ "service-webhook-signature": signature, "service-webhook-transmission-time": [] }),
    ).toEqual({
      ok: false,
      reason: "missing_timestamp",
    });
  });

  it("reads header names case-insensitively and accepts array values", () => {
    const { "service-webhook-signature": signature = "", "service-webhook-transmission-time": time = "" } =
      headersFor(BODY);
    expect(
      verify({ "Service-Webhook-Signature": signature, "SERVICE-WEBHOOK-TRANSMISSION-TIME": time }),
    ).toEqual({
      ok: true,
    });
    expect(
      verify({ "service-webhook-signature": [signature], "service-webhook-transmission-time": [time] }),
    ).toEqual({
      ok: true,
    });
    // API Gateway may hand over the same header under two spellings; identical values are one value.
    expect(
      verify({
        "Service-Webhook-Signature": signature,
        "service-webhook-signature": [signature],
        "service-webhook-transmission-time": time,
      }),
    ).toEqual({ ok: true });
  });

  it("rejects two different values of one header", () => {
    const headers = headersFor(BODY);
    const signature = headers["service-webhook-signature"] ?? "";
    const otherTime = formatTransmissionTime(shifted(1000));
    expect(
      verify({ ...headers, "service-webhook-signature": [signature, BODY_SIGNATURE.replace("q", "Q")] }),
    ).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    expect(
      verify({ ...headers, "service-webhook-transmission-time": [formatTransmissionTime(NOW), otherTime] }),
    ).toEqual({ ok: false, reason: "bad_timestamp" });
  });

  it("reads the real gateway's eximbay- headers by default", () => {
    const headers = {
      "eximbay-webhook-signature": BODY_SIGNATURE,
      "eximbay-webhook-transmission-time": "2026-11-22T10:15:30.123+09:00",
    };
    expect(webhookHeaderNames()).toEqual({
      signature: "eximbay-webhook-signature",
      transmissionTime: "eximbay-webhook-transmission-time",
    });
    expect(verify(headers)).toEqual({ ok: true });
  });

  it("prefers the configured prefix and accepts any other prefix's pair", () => {
    const headers = headersFor(BODY, { prefix: "acme" });
    expect(Object.keys(headers)).toEqual(["acme-webhook-signature", "acme-webhook-transmission-time"]);
    const check = (delivered: WebhookHeaders, prefix: string) =>
      verifyWebhook({
        rawBody: BODY,
        headers: delivered,
        secrets: [CURRENT],
        now: NOW,
        headerPrefix: prefix,
      });
    expect(check(headers, "acme")).toEqual({ ok: true });
    expect(check(headers, "ACME")).toEqual({ ok: true });
    // The seed's `service` prefix configured, the real gateway's `eximbay` sent: the HMAC decides.
    expect(check(headersFor(BODY, { prefix: "eximbay" }), "service")).toEqual({ ok: true });
    expect(verify(headers)).toEqual({ ok: true });
    // A forged pair under the configured prefix is judged, not skipped for a valid pair under another one.
    const forged = { ...headersFor(BODY, { prefix: "service", secret: "not-ours" }), ...headers };
    expect(check(forged, "service")).toEqual({ ok: false, reason: "signature_mismatch" });
    // Both headers must come under one prefix.
    const split = {
      "acme-webhook-signature": headers["acme-webhook-signature"],
      "other-webhook-transmission-time": headers["acme-webhook-transmission-time"],
    };
    expect(check(split, "acme")).toEqual({ ok: false, reason: "missing_timestamp" });
    expect(check({ "-webhook-signature": BODY_SIGNATURE }, "acme")).toEqual({
      ok: false,
      reason: "missing_signature",
    });
  });

  it("throws on a misconfiguration without echoing any secret", () => {
    const headers = headersFor(BODY);
    expect(() => verify(headers, BODY, [])).toThrow(/at least one non-empty secret/);
    expect(() => verify(headers, BODY, [CURRENT, ""])).toThrow(/at least one non-empty secret/);
    expect(() =>
      verifyWebhook({ rawBody: BODY, headers, secrets: [CURRENT], now: NOW, toleranceSeconds: -1 }),
    ).toThrow(RangeError);
  });
});

describe("transmission time", () => {
  it("formats yyyy-MM-dd'T'HH:mm:ss.SSSXXX in the requested offset", () => {
    expect(formatTransmissionTime(NOW)).toBe("2026-11-22T01:15:30.123Z");
    expect(formatTransmissionTime(NOW, 540)).toBe("2026-11-22T10:15:30.123+09:00");
    expect(formatTransmissionTime(NOW, -330)).toBe("2026-11-21T19:45:30.123-05:30");
    expect(formatTransmissionTime(new Date("2027-01-01T00:00:00.007Z"), 60)).toBe(
      "2027-01-01T01:00:00.007+01:00",
    );
  });

  it("parses what it formats back to the same instant", () => {
    for (const offset of [0, 540, -330, 18 * 60, -18 * 60]) {
      expect(parseTransmissionTime(formatTransmissionTime(NOW, offset))?.getTime()).toBe(NOW.getTime());
    }
    expect(parseTransmissionTime("2026-11-22T10:15:30.123+09:00")?.toISOString()).toBe(
      "2026-11-22T01:15:30.123Z",
    );
    expect(parseTransmissionTime("2028-02-29T00:00:00.000Z")?.toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });

  it("refuses offsets it cannot write and invalid dates", () => {
    expect(() => formatTransmissionTime(NOW, 30.5)).toThrow(RangeError);
    expect(() => formatTransmissionTime(NOW, 19 * 60)).toThrow(RangeError);
    expect(() => formatTransmissionTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("webhook replies", () => {
  it("acknowledges with the body that stops re-sends", () => {
    expect(JSON.stringify(webhookAckReply())).toBe('{"rescode":"0000","resmsg":"Success"}');
  });

  it("answers a signature failure with the seed's sample body", () => {
    expect(JSON.stringify(webhookSignatureFailReply())).toBe('{"rescode":"XXXX","resmsg":"signature_fail"}');
  });

  it("returns a fresh object each time", () => {
    const first = webhookAckReply();
    first.resmsg = "changed";
    expect(webhookAckReply().resmsg).toBe("Success");
    expect(webhookSignatureFailReply()).not.toBe(webhookSignatureFailReply());
  });
});
