import { createCipheriv, createDecipheriv } from "node:crypto";
import { DEFAULT_AES_IV } from "./config";

/**
 * The gateway's card-field scheme: AES-256-CBC, PKCS#7 padding, a fixed 16-byte IV, Base64 output.
 * Plaintext is never put into an error message.
 */
export interface CardCipherKey {
  /** 32-byte key as 64 hex characters. */
  readonly keyHex: string;
  /** 16 ASCII bytes; the documented value by default. */
  readonly iv?: string;
}

function keyAndIv({ keyHex, iv = DEFAULT_AES_IV }: CardCipherKey): [Buffer, Buffer] {
  // Checked as text: Buffer.from(…, "hex") silently drops a trailing odd digit or anything after a non-hex one.
  if (!/^[0-9a-fA-F]{64}$/.test(keyHex)) throw new Error("AES key must be 32 bytes (64 hex characters)");
  const key = Buffer.from(keyHex, "hex");
  const ivBytes = Buffer.from(iv, "ascii");
  if (ivBytes.length !== 16) throw new Error("AES IV must be 16 bytes");
  return [key, ivBytes];
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
