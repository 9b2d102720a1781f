import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../../local/stack/local-stack";
import { merchantLifecycle } from "../../support/merchant-lifecycle";

// The typed client package (clients/node, as npm ci builds it) against local mode as `npm start` runs it: a SaaS's
// whole use of the merchant API, each answer typed by the OpenAPI document, and each refusal a BillingApiError.

describe("the client package on the local stack", () => {
  let local: LocalStack;

  beforeAll(async () => {
    local = await LocalStack.start({
      port: 0,
      sandboxPort: 0,
      realTime: false,
      start: new Date("2027-04-01T09:00:00.000Z"),
    });
  }, 60_000);

  afterAll(() => local?.close());

  it("signs up, renews by the clock, refunds, upgrades, pauses, cancels — and is refused as the README says", async () => {
    const { refusals } = await merchantLifecycle({
      baseUrl: local.url,
      apiKey: local.apiKey,
      sandboxUrl: local.sandboxUrl,
      run: "direct",
    });
    expect(refusals).toEqual({
      invalid: { status: 400, code: "invalid_request", field: "card.expiry" },
      declined: { status: 422, code: "DC51", reason: "insufficient_funds" },
      unknown: { status: 404, code: "not_found" },
      keyReused: { status: 409, code: "idempotency_key_reused", field: "Idempotency-Key" },
      canceled: { status: 409, code: "subscription_canceled" },
      unauthorized: { status: 401, code: "unauthorized" },
      gatewayDown: { status: 503, code: "gateway_unavailable" },
    });
  }, 120_000);
});
