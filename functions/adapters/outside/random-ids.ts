import { createHash, randomBytes } from "node:crypto";
import type { IdSource } from "../../core/ports/clock";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** Lower-case Crockford base32 of random bytes: no ambiguous letters, safe in URLs and order_ids. */
export function randomBase32(bytes: number): string {
  return base32(randomBytes(bytes));
}

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + CROCKFORD[(value << (5 - bits)) & 31] : out;
}

/**
 * 80 random bits: `sub_` + 16 characters, so `<id>-<period>-<attempt>` stays within the 30-character order_id; a
 * refund_id is `rf_` + 16 (the gateway allows 30). A request that carries a key gets ids derived from it instead, so a
 * retried request finds its first try.
 */
export function createRandomIds(): IdSource {
  return {
    subscriptionId: () => `sub_${randomBase32(10)}`,
    subscriptionIdFor: (requestKey) => `sub_${digest32(`subscription:${requestKey}`)}`,
    refundId: () => `rf_${randomBase32(10)}`,
    notifyToken: () => randomBase32(20),
    refundIdFor: (requestKey, orderId) => `rf_${digest32(`refund:${orderId}:${requestKey}`)}`,
    webhookEndpointId: () => `we_${randomBase32(10)}`,
    webhookEndpointIdFor: (requestKey) => `we_${digest32(`webhook-endpoint:${requestKey}`)}`,
    webhookSecret: () => `whsec_${randomBytes(32).toString("base64")}`,
    webhookDeliveryId: (source) => `wd_${digest32(`webhook-delivery:${source}`)}`,
    priceId: () => `price_${randomBase32(10)}`,
    priceIdFor: (requestKey) => `price_${digest32(`price:${requestKey}`)}`,
    couponId: () => `co_${randomBase32(10)}`,
    couponIdFor: (requestKey) => `co_${digest32(`coupon:${requestKey}`)}`,
  };
}

/** 80 bits of the text's SHA-256 in base32 (16 characters). */
const digest32 = (text: string) => base32(createHash("sha256").update(text).digest().subarray(0, 10));
