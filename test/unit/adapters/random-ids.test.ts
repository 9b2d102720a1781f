import { describe, expect, it } from "vitest";
import { createRandomIds, randomBase32 } from "../../../functions/adapters/outside/random-ids";
import { attemptKeyOf, orderIdFor } from "../../../functions/core/base/order-id";

describe("random ids", () => {
  it("makes subscription ids whose order_ids fit the gateway's 30 characters for 10 years of attempts", () => {
    const ids = createRandomIds();
    const seen = new Set<string>();
    for (let n = 0; n < 1000; n += 1) {
      const id = ids.subscriptionId();
      expect(id).toMatch(/^sub_[0-9a-hjkmnp-tv-z]{16}$/);
      seen.add(id);
      const orderId = orderIdFor({ subscription_id: id, period: 120, attempt: 99 });
      expect(orderId.length).toBeLessThanOrEqual(30);
      expect(attemptKeyOf(orderId)).toEqual({ subscription_id: id, period: 120, attempt: 99 });
    }
    expect(seen.size).toBe(1000);
  });

  it("encodes 5 bits per character", () => {
    expect(randomBase32(5)).toHaveLength(8);
    expect(randomBase32(10)).toHaveLength(16);
    expect(randomBase32(1)).toHaveLength(2);
  });

  it("names webhook endpoints as the API's path takes them, a key's always alike, and gives 32-byte secrets", () => {
    const ids = createRandomIds();
    expect(ids.webhookEndpointId()).toMatch(/^we_[0-9a-z]{16}$/);
    expect(ids.webhookEndpointIdFor("key-1")).toMatch(/^we_[0-9a-z]{16}$/);
    expect(ids.webhookEndpointIdFor("key-1")).toBe(ids.webhookEndpointIdFor("key-1"));
    expect(ids.webhookEndpointIdFor("key-2")).not.toBe(ids.webhookEndpointIdFor("key-1"));
    const secret = ids.webhookSecret();
    // Standard Webhooks' form: whsec_ and the key in base64.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(ids.webhookDeliveryId("entry:we_1")).toBe(ids.webhookDeliveryId("entry:we_1"));
  });
});
