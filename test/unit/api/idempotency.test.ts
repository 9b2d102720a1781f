import { describe, expect, it } from "vitest";
import { ApiError, type ApiResponse, gatewayFailure, toErrorResponse } from "../../../functions/api/errors";
import { created } from "../../../functions/api/http";
import { fingerprintOf, idempotentPost, requestKeyOf } from "../../../functions/api/idempotency";
import { MemoryIdempotencyStore } from "../../support/memory-idempotency";
import { apiEvent } from "../../support/merchant-api";

const PATH = "/v1/subscriptions/sub_0123456789abcdef/charges";
const post = (key?: string) => apiEvent("POST", PATH, { idempotencyKey: key });

/** A handler that counts its runs and answers what `answer` gives. */
function handlerOf(answer: () => ApiResponse) {
  const keys: (string | undefined)[] = [];
  return {
    keys,
    handle: async (requestKey: string | undefined) => {
      keys.push(requestKey);
      return answer();
    },
  };
}

describe("idempotentPost", () => {
  it("runs every request without an Idempotency-Key", async () => {
    const services = { idempotency: new MemoryIdempotencyStore() };
    const handler = handlerOf(() => created({ n: 1 }));
    await idempotentPost(post(), services, {}, handler.handle);
    await idempotentPost(post(), services, {}, handler.handle);
    expect(handler.keys).toEqual([undefined, undefined]);
    expect(services.idempotency.records.size).toBe(0);
  });

  it("answers the first response to the same key and request, without running it again", async () => {
    const services = { idempotency: new MemoryIdempotencyStore() };
    const handler = handlerOf(() => created({ charge_id: "c1" }));
    const first = await idempotentPost(post("k-1"), services, { amount: "5.00" }, handler.handle);
    const again = await idempotentPost(post("k-1"), services, { amount: "5.00" }, handler.handle);
    expect(first).toEqual(created({ charge_id: "c1" }));
    expect(again).toEqual({ ...first, headers: { "idempotent-replayed": "true" } });
    expect(handler.keys).toEqual([requestKeyOf("k-1")]);
  });

  it("refuses the same key with another body, and a key still in use", async () => {
    const services = { idempotency: new MemoryIdempotencyStore() };
    const handler = handlerOf(() => created({}));
    await idempotentPost(post("k-2"), services, { amount: "5.00" }, handler.handle);
    const reused = idempotentPost(post("k-2"), services, { amount: "6.00" }, handler.handle);
    await expect(reused).rejects.toMatchObject({ status: 409, code: "idempotency_key_reused" });

    services.idempotency.records.set("k-busy", { fingerprint: fingerprintOf(post("k-busy"), {}) });
    const busy = idempotentPost(post("k-busy"), services, {}, handler.handle);
    await expect(busy).rejects.toMatchObject({ status: 409, code: "request_in_progress" });
  });

  it("keeps a refusal (4xx) but not a 5xx, which the same key may repeat", async () => {
    const services = { idempotency: new MemoryIdempotencyStore() };
    const declined = handlerOf(() => {
      throw gatewayFailure({ kind: "declined", code: "DC51", message: "insufficient funds" });
    });
    const first = await idempotentPost(post("k-3"), services, {}, declined.handle);
    expect(first).toEqual(toErrorResponse(gatewayFailure({ kind: "declined", code: "DC51", message: "" })));
    await idempotentPost(post("k-3"), services, {}, declined.handle);
    expect(declined.keys).toHaveLength(1);

    const unavailable = handlerOf(() => {
      throw gatewayFailure({ kind: "unavailable", reason: "HTTP 503" });
    });
    for (let call = 0; call < 2; call += 1) {
      await expect(idempotentPost(post("k-4"), services, {}, unavailable.handle)).rejects.toBeInstanceOf(
        ApiError,
      );
    }
    expect(unavailable.keys).toHaveLength(2);
  });

  it("keeps no 202: the same key runs again and answers what the first try came to", async () => {
    const services = { idempotency: new MemoryIdempotencyStore() };
    let status = 202;
    const handler = handlerOf(() => ({
      status,
      headers: {},
      body: { status: status === 202 ? "pending" : "succeeded" },
    }));
    const first = await idempotentPost(post("k-5"), services, {}, handler.handle);
    expect(first).toMatchObject({ status: 202, body: { status: "pending" } });
    expect(services.idempotency.records.size).toBe(0);
    status = 201;
    const settled = await idempotentPost(post("k-5"), services, {}, handler.handle);
    expect(settled).toMatchObject({ status: 201, body: { status: "succeeded" } });
    const replayed = await idempotentPost(post("k-5"), services, {}, handler.handle);
    expect(replayed.headers).toEqual({ "idempotent-replayed": "true" });
    expect(handler.keys).toEqual([requestKeyOf("k-5"), requestKeyOf("k-5")]);
  });

  it("refuses a malformed key naming the header", async () => {
    const services = { idempotency: new MemoryIdempotencyStore() };
    const handler = handlerOf(() => created({}));
    for (const key of ["", "has space", "x".repeat(256)]) {
      await expect(idempotentPost(post(key), services, {}, handler.handle)).rejects.toMatchObject({
        status: 400,
        field: "Idempotency-Key",
      });
    }
    expect(handler.keys).toEqual([]);
  });
});

describe("request digests", () => {
  it("depend on route, path and body, not on key order", () => {
    const event = post("k");
    expect(fingerprintOf(event, { a: 1, b: { c: 2, d: 3 } })).toBe(
      fingerprintOf(event, { b: { d: 3, c: 2 }, a: 1 }),
    );
    expect(fingerprintOf(event, { a: 1 })).not.toBe(fingerprintOf(event, { a: 2 }));
    const elsewhere = apiEvent("POST", "/v1/subscriptions/sub_fedcba9876543210/charges", {});
    expect(fingerprintOf(elsewhere, {})).not.toBe(fingerprintOf(event, {}));
    expect(fingerprintOf(apiEvent("POST", "/v1/checkouts"), {})).not.toBe(fingerprintOf(event, {}));
  });

  it("keep no trace of the key itself", () => {
    expect(requestKeyOf("order-42")).toMatch(/^[0-9a-f]{64}$/);
    expect(requestKeyOf("order-42")).not.toContain("order-42");
  });
});
