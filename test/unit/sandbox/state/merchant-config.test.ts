import { describe, expect, it } from "vitest";
import { MerchantRegistry, merchantFromEnv, TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";

const OTHER = {
  mid: "SBXTEST002",
  apiKey: "sandbox_api_key_other",
  aesKeyHex: "f".repeat(64),
  webhookSecret: "sandbox_webhook_secret_other",
  partnerApiKey: "sandbox_partner_api_key_other",
};

describe("merchantFromEnv", () => {
  it("defaults every field to the test merchant (an empty variable counts as unset)", () => {
    expect(merchantFromEnv({})).toEqual(TEST_MERCHANT);
    expect(merchantFromEnv({ SANDBOX_MID: "" })).toEqual(TEST_MERCHANT);
  });

  it("honours each variable", () => {
    const merchant = merchantFromEnv({
      SANDBOX_MID: OTHER.mid,
      SANDBOX_API_KEY: OTHER.apiKey,
      SANDBOX_AES_KEY: OTHER.aesKeyHex,
      SANDBOX_WEBHOOK_SECRET: OTHER.webhookSecret,
      SANDBOX_PARTNER_API_KEY: OTHER.partnerApiKey,
    });
    expect(merchant).toEqual(OTHER);
  });

  it("names the invalid variable and never echoes its value", () => {
    expect(() => merchantFromEnv({ SANDBOX_AES_KEY: "abc123" })).toThrow(
      /^SANDBOX_AES_KEY must be 64 hex characters/,
    );
    expect(() => merchantFromEnv({ SANDBOX_AES_KEY: "g".repeat(64) })).toThrow(/SANDBOX_AES_KEY/);
    expect(() => merchantFromEnv({ SANDBOX_MID: "ELEVENCHARS" })).toThrow(/^SANDBOX_MID must be at most 10/);
    try {
      merchantFromEnv({ SANDBOX_AES_KEY: "secret-looking-value" });
    } catch (error) {
      expect(String(error)).not.toContain("secret-looking-value");
    }
  });
});

describe("MerchantRegistry", () => {
  it("finds merchants by API key, partner API key and mid", () => {
    const registry = new MerchantRegistry([TEST_MERCHANT, OTHER]);
    expect(registry.byApiKey(OTHER.apiKey)?.mid).toBe(OTHER.mid);
    expect(registry.byPartnerApiKey(TEST_MERCHANT.partnerApiKey)?.mid).toBe(TEST_MERCHANT.mid);
    expect(registry.byMid(OTHER.mid)?.apiKey).toBe(OTHER.apiKey);
    expect(registry.byApiKey("nope")).toBeUndefined();
    expect(registry.list().map((merchant) => merchant.mid)).toEqual([TEST_MERCHANT.mid, OTHER.mid]);
  });

  it("refuses no merchant, invalid ones and shared identifiers or keys", () => {
    expect(() => new MerchantRegistry([])).toThrow(/at least one/);
    expect(() => new MerchantRegistry([{ ...OTHER, aesKeyHex: "00" }])).toThrow();
    expect(() => new MerchantRegistry([TEST_MERCHANT, { ...OTHER, mid: TEST_MERCHANT.mid }])).toThrow(
      /duplicate/,
    );
    expect(() => new MerchantRegistry([TEST_MERCHANT, { ...OTHER, apiKey: TEST_MERCHANT.apiKey }])).toThrow(
      /API key/,
    );
    expect(
      () => new MerchantRegistry([TEST_MERCHANT, { ...OTHER, partnerApiKey: TEST_MERCHANT.partnerApiKey }]),
    ).toThrow(/partner API key/);
  });
});
