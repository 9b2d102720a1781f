import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../../functions/api/api-key";
import { run as authorizeMerchant } from "../../../functions/handlers/authorize-merchant";
import { authorizerEvent } from "../../../local/lambda/api-gateway-event";
import { captureOutput } from "../../support/handler-env";
import { apiEvent } from "../../support/merchant-api";

const KEY = "mk_test_0123456789abcdefghijklmnop";
const services = { apiKeyDigests: async () => [hashApiKey(KEY)] };

const eventWith = (headers: Record<string, string>) =>
  authorizerEvent(apiEvent("GET", "/v1/subscriptions/sub_x", { headers }));

describe("authorizeMerchant", () => {
  it("authorizes the right key", async () => {
    expect(await authorizeMerchant(eventWith({ authorization: `Bearer ${KEY}` }), services)).toEqual({
      isAuthorized: true,
    });
    // Header names may arrive in any case outside API Gateway (local mode).
    expect(
      await authorizeMerchant({ ...eventWith({}), headers: { Authorization: `Bearer ${KEY}` } }, services),
    ).toEqual({ isAuthorized: true });
  });

  it("refuses a missing, malformed or wrong key and logs why, never the key", async () => {
    const output = captureOutput();
    const cases = {
      missing: {},
      malformed: { authorization: `Token ${KEY}` },
      wrong: { authorization: "Bearer mk_test_wrongwrongwrongwrongwrong" },
    };
    for (const headers of Object.values(cases)) {
      expect(await authorizeMerchant(eventWith(headers), services)).toEqual({ isAuthorized: false });
    }
    expect(output.logs().map((line) => JSON.stringify(line))).toEqual([
      expect.stringContaining('"reason":"missing"'),
      expect.stringContaining('"reason":"malformed"'),
      expect.stringContaining('"reason":"wrong"'),
    ]);
    expect(output.text()).not.toContain(KEY);
    expect(output.text()).not.toContain("wrongwrongwrong");
  });

  it("fails (a 500 at API Gateway) when the digests cannot be read", async () => {
    const broken = { apiKeyDigests: async () => Promise.reject(new Error("secret unreadable")) };
    await expect(authorizeMerchant(eventWith({ authorization: `Bearer ${KEY}` }), broken)).rejects.toThrow();
  });
});
