import { describe, expect, it } from "vitest";
import { retryingFetch } from "../src/retrying-fetch";

// The retries and keys every call of the client goes through, over a fetch that answers from a script.

const API = "https://api.example.test";
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const inProgress = () => json(409, { error: { code: "request_in_progress", message: "still running" } });

/** A fetch that answers the script in turn (an Error is a failed connection) and keeps what it was sent. */
function scripted(...script: (Response | Error)[]) {
  const sent: { method: string; key: string | null; body: string }[] = [];
  const fetch = async (request: Request) => {
    sent.push({
      method: request.method,
      key: request.headers.get("idempotency-key"),
      body: await request.text(),
    });
    const next = script.shift() ?? json(200, {});
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, sent };
}

const fast = { retryDelayMs: 1, maxRetryDelayMs: 5 };
const post = (body = '{"amount":"1.00"}', headers: Record<string, string> = {}) =>
  new Request(`${API}/v1/subscriptions/sub_1/charges`, { method: "POST", body, headers });

describe("the client's fetch", () => {
  it("keys every POST, and repeats it with the same key and body after a 5xx, a 429, a request in progress or a failed connection", async () => {
    const { fetch, sent } = scripted(
      json(503, { error: { code: "gateway_unavailable", message: "x" } }, { "retry-after": "0" }),
      json(429, {}),
      inProgress(),
      new TypeError("fetch failed"),
      json(201, { status: "succeeded" }),
    );
    const retries: unknown[] = [];
    const answer = await retryingFetch(fetch, {
      ...fast,
      maxRetries: 4,
      idempotencyKey: () => "k-1",
      onRetry: ({ attempt, status, error }) => retries.push([attempt, status ?? String(error)]),
    })(post());
    expect(answer.status).toBe(201);
    expect(sent).toEqual(Array(5).fill({ method: "POST", key: "k-1", body: '{"amount":"1.00"}' }));
    expect(retries).toEqual([
      [1, 503],
      [2, 429],
      [3, 409],
      [4, "TypeError: fetch failed"],
    ]);
  });

  it("keeps the caller's own key, and a new one for each request", async () => {
    const { fetch, sent } = scripted();
    let keys = 0;
    const client = retryingFetch(fetch, { ...fast, idempotencyKey: () => `new-${++keys}` });
    await client(post("{}", { "Idempotency-Key": "mine" }));
    await client(post());
    await client(post());
    expect(sent.map((request) => request.key)).toEqual(["mine", "new-1", "new-2"]);
  });

  it("repeats nothing the caller must act on: a 4xx, a 409 of a reused key, a 202", async () => {
    for (const answer of [
      json(400, { error: { code: "invalid_request", message: "x", field: "amount" } }),
      json(409, { error: { code: "idempotency_key_reused", message: "x" } }),
      json(422, { error: { code: "declined", message: "x" } }),
      json(202, { status: "pending" }),
    ]) {
      const { fetch, sent } = scripted(answer);
      expect((await retryingFetch(fetch, fast)(post())).status).toBe(answer.status);
      expect(sent).toHaveLength(1);
    }
  });

  it("gives up after maxRetries, answering the last response (or throwing the last failure)", async () => {
    const failing = scripted(
      ...Array(5)
        .fill(null)
        .map(() => json(500, {})),
    );
    expect((await retryingFetch(failing.fetch, { ...fast, maxRetries: 2 })(post())).status).toBe(500);
    expect(failing.sent).toHaveLength(3);
    const down = scripted(new TypeError("fetch failed"), new TypeError("fetch failed"));
    await expect(retryingFetch(down.fetch, { ...fast, maxRetries: 1 })(post())).rejects.toThrow(
      "fetch failed",
    );
    expect(down.sent).toHaveLength(2);
  });

  it("repeats GETs and DELETEs as they are, without a key", async () => {
    const { fetch, sent } = scripted(json(502, {}), json(200, {}), json(504, {}), json(200, {}));
    const client = retryingFetch(fetch, fast);
    await client(new Request(`${API}/v1/subscriptions`));
    await client(new Request(`${API}/v1/subscriptions/sub_1`, { method: "DELETE" }));
    expect(sent.map(({ method, key }) => [method, key])).toEqual([
      ["GET", null],
      ["GET", null],
      ["DELETE", null],
      ["DELETE", null],
    ]);
  });

  it("waits what Retry-After says, within maxRetryDelayMs", async () => {
    const { fetch } = scripted(json(503, {}, { "retry-after": "30" }), json(200, {}));
    const started = Date.now();
    await retryingFetch(fetch, { maxRetryDelayMs: 40 })(post());
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  it("stops at once when the caller aborts", async () => {
    const controller = new AbortController();
    const { sent } = scripted();
    const fetch = async (request: Request) => {
      sent.push({ method: request.method, key: null, body: "" });
      controller.abort();
      throw new DOMException("aborted", "AbortError");
    };
    const request = new Request(`${API}/v1/subscriptions`, { signal: controller.signal });
    await expect(retryingFetch(fetch, fast)(request)).rejects.toThrow("aborted");
    expect(sent).toHaveLength(1);
  });
});
