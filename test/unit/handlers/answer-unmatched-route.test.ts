import { describe, expect, it } from "vitest";
import { run } from "../../../functions/handlers/answer-unmatched-route";

describe("answer-unmatched-route", () => {
  it("answers a path no route has with 404 in the merchant API's envelope", async () => {
    expect(await run({ rawPath: "/v2/subscriptions" })).toMatchObject({
      statusCode: 404,
      body: JSON.stringify({ error: { code: "not_found", message: "no such route" } }),
    });
  });

  it("answers a route's path under another method with 405 and the methods it serves", async () => {
    const answer = await run({ rawPath: "/v1/subscriptions/sub_1" });
    expect(answer).toMatchObject({ statusCode: 405, headers: { allow: "GET, POST, DELETE" } });
    expect(JSON.parse(String(answer.body))).toEqual({
      error: { code: "method_not_allowed", message: "this method is not allowed here" },
    });
    expect((await run({ rawPath: "/openapi.json" })).headers).toMatchObject({ allow: "GET" });
  });
});
