import { createCipheriv, createDecipheriv } from "node:crypto";

/**
 * The gateway's card-field scheme: AES-256-CBC, PKCS#7 padding, a fixed 16-byte IV, Base64 output.
 * Plaintext is never put into an error message.
 */
export interface CardCipherKey {
  /** The merchant's 32-byte key: 64 hex characters, or a 32-character key used as its own bytes. */
  readonly key: string;
  /** 16 ASCII bytes; the documented value by default. */
  readonly iv?: string;
}

/** The IV the gateway documents for card-field encryption: 16 ASCII bytes. */
export const DEFAULT_AES_IV = "Eximbay_AES_256_";

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * The 32 key bytes of a merchant key, or undefined when it has neither accepted form. The gateway hands the key out
 * as text and its form is not published (README, The real gateway): integrations hold 32-character strings, used as
 * their bytes, and hex is the other common form. A 64-character hex text is always read as hex.
 */
export function aesKeyBytes(key: string): Buffer | undefined {
  // Checked as text: Buffer.from(…, "hex") silently drops a trailing odd digit or anything after a non-hex one.
  if (HEX_KEY.test(key)) return Buffer.from(key, "hex");
  const bytes = Buffer.from(key, "utf8");
  return bytes.length === 32 && key.length === 32 ? bytes : undefined;
}

export const AES_KEY_FORMS = "must be 64 hex characters or a 32-character key";

function keyAndIv({ key, iv = DEFAULT_AES_IV }: CardCipherKey): [Buffer, Buffer] {
  const keyBytes = aesKeyBytes(key);
  if (keyBytes === undefined) throw new Error(`AES key ${AES_KEY_FORMS}`);
  const ivBytes = Buffer.from(iv, "ascii");
  if (ivBytes.length !== 16) throw new Error("AES IV must be 16 bytes");
  return [keyBytes, ivBytes];
}

export function encryptField(plaintext: string, cipherKey: CardCipherKey): string {
  const cipher = createCipheriv("aes-256-cbc", ...keyAndIv(cipherKey));
  return Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]).toString("base64");
}

/**
 * Decrypts a Base64 field; returns undefined when it is not valid ciphertext under this key (bad padding, bad Base64).
 * A malformed key or IV throws, like encryptField: a misconfiguration must not pass for bad input.
 */
export function decryptField(ciphertext: string, cipherKey: CardCipherKey): string | undefined {
  const [key, iv] = keyAndIv(cipherKey);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(ciphertext) || ciphertext.length % 4 !== 0) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-cbc", key, iv);
    const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]);
    return plaintext.toString("utf8");
  } catch {
    return undefined;
  }
}
