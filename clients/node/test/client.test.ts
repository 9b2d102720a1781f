import { describe, expect, it } from "vitest";
import { BillingApiError, createBillingClient, isReplayed, listAll, ok } from "../src/index";

// The typed client over a fetch that answers as the API would (the e2e tier runs it against local mode itself).

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function client(answer: (request: Request) => Response) {
  const sent: Request[] = [];
  const billing = createBillingClient({
    baseUrl: "https://api.example.test/",
    apiKey: "mk_test_1",
    retryDelayMs: 1,
    fetch: async (request) => {
      sent.push(request.clone());
      return answer(request);
    },
  });
  return { billing, sent };
}

describe("the billing client", () => {
  it("sends the bearer key and JSON, and answers the data of a success", async () => {
    const { billing, sent } = client(() => json(200, { subscription_id: "sub_1", status: "active" }));
    const subscription = await ok(
      billing.POST("/v1/subscriptions/{id}/resume", { params: { path: { id: "sub_1" } }, body: {} }),
    );
    expect(subscription).toMatchObject({ subscription_id: "sub_1" });
    const [request] = sent;
    expect(request?.url).toBe("https://api.example.test/v1/subscriptions/sub_1/resume");
    expect(request?.headers.get("authorization")).toBe("Bearer mk_test_1");
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(request?.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("throws the envelope's code, field and decline as a BillingApiError", async () => {
    const decline = { rescode: "DC51", reason: "insufficient_funds", next_step: "retry_later" };
    const { billing } = client(() =>
      json(422, { error: { code: "declined", message: "insufficient funds", decline } }),
    );
    const thrown = await ok(
      billing.GET("/v1/subscriptions/{id}", { params: { path: { id: "sub_1" } } }),
    ).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(BillingApiError);
    expect(thrown).toMatchObject({ status: 422, code: "declined", field: undefined, decline });
    const invalid = client(() =>
      json(400, { error: { code: "invalid_request", message: "bad", field: "amount" } }),
    );
    await expect(ok(invalid.billing.GET("/v1/subscriptions"))).rejects.toMatchObject({ field: "amount" });
    const unreadable = client(() => new Response("<html>", { status: 502 }));
    await expect(ok(unreadable.billing.GET("/v1/subscriptions"))).rejects.toMatchObject({
      status: 502,
      code: "http_502",
    });
  });

  it("says when an answer is a replay of an earlier request with the same key", async () => {
    const { billing } = client(() => json(201, {}, { "idempotent-replayed": "true" }));
    const { response } = await billing.POST("/v1/webhook-endpoints", { body: { url: "https://x.example" } });
    expect(isReplayed(response)).toBe(true);
  });

  it("iterates every item of a list, page after page, keeping the other parameters", async () => {
    const pages: Record<string, unknown> = {
      "": { data: [{ subscription_id: "a" }, { subscription_id: "b" }], next_cursor: "c1" },
      c1: { data: [{ subscription_id: "c" }], next_cursor: "c2" },
      c2: { data: [], next_cursor: null },
    };
    const { billing, sent } = client((request) =>
      json(200, pages[new URL(request.url).searchParams.get("cursor") ?? ""]),
    );
    const ids: string[] = [];
    for await (const subscription of listAll(billing, "/v1/subscriptions", {
      query: { status: "active", limit: "2" },
    }))
      ids.push(subscription.subscription_id);
    expect(ids).toEqual(["a", "b", "c"]);
    expect(sent.map((request) => new URL(request.url).search)).toEqual([
      "?status=active&limit=2",
      "?status=active&limit=2&cursor=c1",
      "?status=active&limit=2&cursor=c2",
    ]);
  });
});
