import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signBody, verifySignature } from "../../../functions/shared/billing-signature";

const SECRET = "whsec_d2ViaG9vay1zZWNyZXQtb2YtdGhlLXRlc3QtZW5kcG9pbnQ";
const BODY =
  '{"type":"charge.succeeded","subscription_id":"sub_1","event_id":"e1","occurred_at":"2027-05-03T08:00:00.000Z"}';
const AT = new Date("2027-05-03T08:00:05.250Z");

describe("the billing-signature header", () => {
  it("is t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>' under the endpoint's secret>", () => {
    const header = signBody(BODY, SECRET, AT);
    const t = 1_809_331_205;
    expect(Math.floor(AT.getTime() / 1000)).toBe(t);
    const expected = createHmac("sha256", SECRET).update(`${t}.${BODY}`).digest("hex");
    expect(header).toBe(`t=${t},v1=${expected}`);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it("signs the README's example as the README shows it", () => {
    expect(signBody("{}", "whsec_test", new Date(1_809_331_205_000))).toBe(
      "t=1809331205,v1=ba9f4b6f9084b294b00703071a48184831d0ccfaa547194aaecfbc08fc82af6c",
    );
  });

  it("verifies as the README's receiver does: valid within 5 minutes, refused when tampered, stale or malformed", () => {
    const header = signBody(BODY, SECRET, AT);
    expect(verifySignature(header, BODY, SECRET, AT)).toBe("valid");
    expect(verifySignature(header, BODY, SECRET, new Date(AT.getTime() + 299_000))).toBe("valid");
    expect(verifySignature(header, BODY, SECRET, new Date(AT.getTime() + 301_000))).toBe("stale");
    expect(verifySignature(header, BODY.replace("sub_1", "sub_2"), SECRET, AT)).toBe("mismatch");
    expect(verifySignature(header, BODY, `${SECRET}x`, AT)).toBe("mismatch");
    // Another t with the same signature is refused: the time is signed too.
    expect(verifySignature(header.replace(/t=\d+/, "t=1809331206"), BODY, SECRET, AT)).toBe("mismatch");
    for (const broken of [undefined, "", "v1=abc", "t=abc,v1=00", "t=1809331205", "t=1809331205,v1=zz"])
      expect(verifySignature(broken, BODY, SECRET, AT), String(broken)).not.toBe("valid");
  });

  it("accepts any of several v1 signatures (a secret being rolled)", () => {
    const ours = signBody(BODY, SECRET, AT);
    const other = signBody(BODY, "whsec_another", AT).split(",")[1];
    expect(verifySignature(`${ours.split(",")[0]},${other},${ours.split(",")[1]}`, BODY, SECRET, AT)).toBe(
      "valid",
    );
  });
});
