import passesLuhn from "fast-luhn";
import { describe, expect, it } from "vitest";
import { REDACTED, redact, redactText, registerSecretValues } from "../../../functions/lambda/redaction";

const PAN = "4111111111111111";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXJ0bmVyIn0.c2lnbmF0dXJlX29mX3Rlc3Q";

describe("redactText", () => {
  it("masks a card number embedded in a message, keeping the last four digits", () => {
    const text = redactText(`card ${PAN} was declined; retry 5555555555554444.`);
    expect(text).toBe("card [PAN ****1111] was declined; retry [PAN ****4444].");
  });

  it("masks PANs of every length from 13 to 19 digits when they pass Luhn", () => {
    for (const pan of [
      "4222222222222",
      "378282246310005",
      "6011111111111117",
      "6250941006528599",
      "4000056655665556122",
    ]) {
      expect(passesLuhn(pan)).toBe(true);
      expect(redactText(`x ${pan} y`)).not.toContain(pan);
    }
    expect(redactText("pan=4222222222222")).toBe("pan=[PAN ****2222]");
  });

  it("keeps digit runs that fail Luhn, are too short or too long", () => {
    expect(redactText("order 4111111111111112")).toBe("order 4111111111111112");
    expect(redactText("id 123456789012")).toBe("id 123456789012");
    const twentyDigits = `${PAN}0000`;
    expect(redactText(`ref ${twentyDigits}`)).toBe(`ref ${twentyDigits}`);
  });

  it("keeps 24-character transaction ids and token ids even when their digits pass Luhn", () => {
    expect(passesLuhn("0000000000000000018")).toBe(true);
    for (const id of ["SBXT00000000000000000018", "SBXTK0000000000000000018", "202701311000004111111111"]) {
      expect(id).toHaveLength(24);
      expect(redactText(`charged ${id}`)).toBe(`charged ${id}`);
    }
  });

  it("keeps the gateway's 14-digit yyyyMMddHHmmss stamps", () => {
    const stamp = "20270131100005";
    expect(passesLuhn(stamp)).toBe(true);
    expect(redactText(`pay_date ${stamp}`)).toBe(`pay_date ${stamp}`);
  });

  it("masks registered secret values anywhere; values too short to be credentials are not registered", () => {
    registerSecretValues(["merchant_api_key_for_tests", "short", undefined]);
    expect(redactText("auth failed for merchant_api_key_for_tests, short of luck")).toBe(
      "auth failed for [REDACTED], short of luck",
    );
  });

  it("masks webhook signing secrets, in base64 and (registered before Standard Webhooks) base64url", () => {
    expect(redactText('answered {"secret":"whsec_AbC-12_xyz"}')).toBe(
      'answered {"secret":"[WEBHOOK SECRET]"}',
    );
    expect(redactText("new Webhook(whsec_Jq8v+2Yx/0cN4m=) refused")).toBe(
      "new Webhook([WEBHOOK SECRET]) refused",
    );
  });

  it("masks JWT-shaped tokens", () => {
    expect(redactText(`Bearer ${JWT} rejected`)).toBe("Bearer [JWT] rejected");
  });
});

describe("redact", () => {
  it("masks sensitive keys case-insensitively at any depth, but not token_id", () => {
    const input = {
      apiKey: "k1",
      API_KEY: "k2",
      partnerApiKey: "k3",
      Authorization: "Basic abc",
      headers: { authorization: "Bearer x", "x-api-key": "k4" },
      aesKeyHex: "00ff",
      aes: "00ff",
      secret: "s",
      webhookSecret: "w",
      password: "p",
      token: "t",
      jwt: "j",
      accessToken: "a",
      token_id: "SBXTK0000000000000000001",
      tokenbilling: { token_id: "SBXTK0000000000000000002", token_creation: "Y" },
      payment: { card_number: "b64", expiry_date: "b64", cvc: "b64" },
    };
    expect(redact(input)).toEqual({
      apiKey: REDACTED,
      API_KEY: REDACTED,
      partnerApiKey: REDACTED,
      Authorization: REDACTED,
      headers: { authorization: REDACTED, "x-api-key": REDACTED },
      aesKeyHex: REDACTED,
      aes: REDACTED,
      secret: REDACTED,
      webhookSecret: REDACTED,
      password: REDACTED,
      token: REDACTED,
      jwt: REDACTED,
      accessToken: REDACTED,
      token_id: "SBXTK0000000000000000001",
      tokenbilling: { token_id: "SBXTK0000000000000000002", token_creation: "Y" },
      payment: { card_number: REDACTED, expiry_date: REDACTED, cvc: REDACTED },
    });
  });

  it("masks number and expiry inside a card object only", () => {
    const input = {
      card: { number: PAN, expiry: "203012", cvc: "123", last4: "1111" },
      number: 3,
      expiry: "P1M",
    };
    expect(redact(input)).toEqual({
      card: { number: REDACTED, expiry: REDACTED, cvc: REDACTED, last4: "1111" },
      number: 3,
      expiry: "P1M",
    });
  });

  it("scans every string, in arrays and nested objects, and leaves the input untouched", () => {
    const input = { notes: [`tried ${PAN}`, { deeper: `jwt ${JWT}` }], when: new Date(0), n: 4111 };
    const output = redact(input);
    expect(output).toEqual({
      notes: ["tried [PAN ****1111]", { deeper: "jwt [JWT]" }],
      when: new Date(0),
      n: 4111,
    });
    expect(input.notes[0]).toBe(`tried ${PAN}`);
  });

  it("turns errors into plain objects with their message and cause redacted", () => {
    const error = new Error(`card ${PAN} refused`, { cause: new Error(`token ${JWT}`) });
    const output = JSON.stringify(redact({ error }));
    expect(output).toContain("[PAN ****1111]");
    expect(output).toContain("[JWT]");
    expect(output).not.toContain(PAN);
    expect(output).not.toContain(JWT);
  });

  it("survives cycles", () => {
    const node: Record<string, unknown> = { name: "a" };
    node.self = node;
    expect(redact(node)).toEqual({ name: "a", self: "[Circular]" });
  });
});
