import { randomBytes, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { aesKeyBytes, decryptField, encryptField } from "../../../functions/gateway/card-crypto";

// A sequential test key (00 01 … 1f), not a real one.
const KEY_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const KEY = { key: KEY_HEX };
const OTHER_KEY = { key: "f".repeat(64) };

/*
 * Known answers computed with the openssl CLI, e.g.
 *   printf '%s' 4111111111111111 | openssl enc -aes-256-cbc -K $KEY_HEX \
 *     -iv $(printf 'Eximbay_AES_256_' | xxd -p) -base64 -A
 */
const VECTORS = [
  // 16 bytes: PKCS#7 adds a whole block of 0x10, so two blocks come out.
  {
    field: "card_number",
    plaintext: "4111111111111111",
    ciphertext: "54Jg0DBngePbQ/HO+4NRWp9yTPkqyiRjaUZeUhkE1c8=",
  },
  { field: "expiry_date", plaintext: "2612", ciphertext: "/AqSP8onOwtQUruKYTGeGw==" },
  { field: "cvc", plaintext: "123", ciphertext: "bvtQJ8zrlubFUYp8EjQKpQ==" },
  {
    field: "32-byte text (full padding block)",
    plaintext: "0123456789abcdef0123456789ABCDEF",
    ciphertext: "JJjDrRyfF/uS2YILC873H5i/nSaIl//9DHhphuPwKxvgicpl2nROqLXonTgoxnxo",
  },
  {
    field: "wallet payload (UTF-8 JSON)",
    plaintext: '{"wallet":"데이터","amount":"1000"}',
    ciphertext: "uC147L0mWiUuzrJIwv+CQ0UtTKMEH9nJSgOLJ/AIQX5K+BAwcRu7oI1B63yupAqP",
  },
  { field: "empty string", plaintext: "", ciphertext: "oO9NrhBHd3lno6RL+K68lQ==" },
] as const;

const CARD = VECTORS[0];
/** The card vector under the 32-character key of the key-form tests, from openssl. */
const TEXT_KEY_CARD_CIPHERTEXT = "IQumS35UUj4UXRvMUKMFU9JSQKmCXaroT1zFXIjw3iE=";

function randomText(): string {
  const alphabet = ["a", "Z", "0", " ", "{", '"', "\\", "é", "데", "€", "😀", "\n"];
  return Array.from({ length: randomInt(0, 80) }, () => alphabet[randomInt(alphabet.length)]).join("");
}

describe("encryptField", () => {
  it.each(VECTORS)("matches openssl for $field", ({ plaintext, ciphertext }) => {
    expect(encryptField(plaintext, KEY)).toBe(ciphertext);
  });

  it("accepts the key in upper-case hex", () => {
    expect(encryptField(CARD.plaintext, { key: KEY_HEX.toUpperCase() })).toBe(CARD.ciphertext);
  });

  it("uses the documented IV by default and a custom one when given", () => {
    expect(encryptField(CARD.plaintext, { key: KEY_HEX, iv: "Eximbay_AES_256_" })).toBe(CARD.ciphertext);
    // openssl … -iv $(printf 'CustomIV_16bytes' | xxd -p)
    const custom = { key: KEY_HEX, iv: "CustomIV_16bytes" };
    expect(encryptField(CARD.plaintext, custom)).toBe("CjFV24qSgzTaoa/9i2aIXnpPlNWn/QIEF5ecb8dqzpM=");
    expect(decryptField("CjFV24qSgzTaoa/9i2aIXnpPlNWn/QIEF5ecb8dqzpM=", custom)).toBe(CARD.plaintext);
    expect(decryptField("CjFV24qSgzTaoa/9i2aIXnpPlNWn/QIEF5ecb8dqzpM=", KEY)).not.toBe(CARD.plaintext);
  });

  it("rejects a malformed key or IV with a message that carries no key material", () => {
    const secretLooking = "c0ffee".repeat(10);
    const malformed = [
      secretLooking,
      `${KEY_HEX}ab`,
      `${KEY_HEX}a`,
      `${KEY_HEX.slice(0, 62)}zz`,
      "",
      "c0ffee".repeat(5), // 30 characters
      `${"c0ffee".repeat(5)}é`, // 31 characters, 32 bytes
    ];
    for (const key of malformed) {
      for (const run of [
        () => encryptField(CARD.plaintext, { key }),
        () => decryptField(CARD.ciphertext, { key }),
      ]) {
        expect(run).toThrow("AES key must be 64 hex characters or a 32-character key");
        try {
          run();
        } catch (error) {
          const message = error instanceof Error ? error.message : "";
          expect(message).not.toMatch(/c0ffee|[0-9a-f]{8}/i);
        }
      }
    }
    expect(() => encryptField(CARD.plaintext, { key: KEY_HEX, iv: "short-iv" })).toThrow(
      "AES IV must be 16 bytes",
    );
  });
});

describe("key forms", () => {
  // A 32-character key, the form integrations hold (not confirmed: README, The real gateway); not a real key.
  const TEXT_KEY = "Sandbox0Text0Key0For0AES0256Test";

  it("reads a 64-hex key as hex and a 32-character key as its own bytes", () => {
    expect(aesKeyBytes(KEY_HEX)).toEqual(Buffer.from(KEY_HEX, "hex"));
    expect(aesKeyBytes(KEY_HEX.toUpperCase())).toEqual(Buffer.from(KEY_HEX, "hex"));
    expect(aesKeyBytes(TEXT_KEY)).toEqual(Buffer.from(TEXT_KEY, "ascii"));
    expect(aesKeyBytes(TEXT_KEY.slice(1))).toBeUndefined();
  });

  it("encrypts with a 32-character key as openssl does with its bytes as the key", () => {
    // printf '%s' 4111111111111111 | openssl enc -aes-256-cbc -K $(printf '%s' "$TEXT_KEY" | xxd -p -c 64) \
    //   -iv $(printf 'Eximbay_AES_256_' | xxd -p) -base64 -A
    const ciphertext = encryptField(CARD.plaintext, { key: TEXT_KEY });
    expect(ciphertext).toBe(encryptField(CARD.plaintext, { key: Buffer.from(TEXT_KEY).toString("hex") }));
    expect(ciphertext).toBe(TEXT_KEY_CARD_CIPHERTEXT);
    expect(decryptField(ciphertext, { key: TEXT_KEY })).toBe(CARD.plaintext);
  });
});

describe("decryptField", () => {
  it.each(VECTORS)("decrypts the openssl vector for $field", ({ plaintext, ciphertext }) => {
    expect(decryptField(ciphertext, KEY)).toBe(plaintext);
  });

  it("round-trips random text, including unicode JSON of a wallet payload", () => {
    for (let run = 0; run < 200; run += 1) {
      const plaintext = randomText();
      expect(decryptField(encryptField(plaintext, KEY), KEY)).toBe(plaintext);
    }
    const wallet = JSON.stringify({
      paymentData: { data: randomBytes(48).toString("base64"), note: "支払い ✓" },
    });
    expect(JSON.parse(decryptField(encryptField(wallet, KEY), KEY) ?? "null")).toEqual(JSON.parse(wallet));
  });

  it("returns undefined under the wrong key", () => {
    expect(decryptField(CARD.ciphertext, OTHER_KEY)).toBeUndefined();
  });

  it("returns undefined for tampered ciphertext (bad padding)", () => {
    const bytes = Buffer.from(CARD.ciphertext, "base64");
    // Flipping a bit of the first block flips the same bit of the second, all-padding block.
    bytes[0] = (bytes[0] ?? 0) ^ 0x01;
    expect(decryptField(bytes.toString("base64"), KEY)).toBeUndefined();
    const lastBlockTampered = Buffer.from(CARD.ciphertext, "base64");
    lastBlockTampered[31] = (lastBlockTampered[31] ?? 0) ^ 0x80;
    expect(decryptField(lastBlockTampered.toString("base64"), KEY)).toBeUndefined();
  });

  it("returns undefined for input that is not Base64 of whole blocks", () => {
    for (const input of [
      "",
      "not base64!",
      CARD.ciphertext.slice(0, -1),
      CARD.ciphertext.replace("/", "_"),
      ` ${CARD.ciphertext}`,
      "AAAA",
      CARD.ciphertext.slice(0, 24),
    ]) {
      expect(decryptField(input, KEY), input).toBeUndefined();
    }
  });
});
