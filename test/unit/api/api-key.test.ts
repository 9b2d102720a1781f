import { describe, expect, it } from "vitest";
import { apiKeyHashesSecretSchema, checkAuthorization, hashApiKey } from "../../../functions/api/api-key";

const KEY = "mk_test_0123456789abcdefghijklmnop";
const OTHER = "mk_test_zyxwvutsrqponmlkjihgfedcba";

describe("API key digests", () => {
  it("are the hex SHA-256 of the key", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("are read from a secret holding one digest or several (rotation)", () => {
    const digest = hashApiKey(KEY);
    expect(apiKeyHashesSecretSchema.parse({ sha256: digest })).toEqual([digest]);
    expect(apiKeyHashesSecretSchema.parse({ sha256: [digest, hashApiKey(OTHER)] })).toHaveLength(2);
    for (const bad of [{ sha256: KEY }, { sha256: [] }, { sha256: digest.toUpperCase() }, { digest }, "x"]) {
      expect(apiKeyHashesSecretSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("checkAuthorization", () => {
  const digests = [hashApiKey(KEY)];

  it("accepts the bearer key whose digest is stored, under either key of a rotation", () => {
    expect(checkAuthorization(`Bearer ${KEY}`, digests)).toBe("ok");
    expect(checkAuthorization(`bearer  ${KEY} `, digests)).toBe("ok");
    expect(checkAuthorization(`Bearer ${OTHER}`, [hashApiKey(OTHER), ...digests])).toBe("ok");
  });

  it("tells a missing header from a malformed one and from a wrong key", () => {
    expect(checkAuthorization(undefined, digests)).toBe("missing");
    expect(checkAuthorization("  ", digests)).toBe("missing");
    for (const header of [
      KEY,
      `Basic ${KEY}`,
      "Bearer",
      "Bearer short",
      `Bearer ${KEY} extra`,
      `Bearer ${KEY}!`,
    ]) {
      expect(checkAuthorization(header, digests), header).toBe("malformed");
    }
    expect(checkAuthorization(`Bearer ${OTHER}`, digests)).toBe("wrong");
    expect(checkAuthorization(`Bearer ${KEY}`, [])).toBe("wrong");
  });
});
