import { type BillingClient, createBillingClient, ok, verifyWebhook } from "recurring-billing-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStack } from "../../../local/stack/local-stack";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

// Webhooks as `npm start` runs them: an endpoint registered over the local HTTP API, the bus stand-in's rule invoking
// queue-webhooks, the event source mapping feeding send-webhooks from the delivery queue, and a clock jump that
// steps through each retry at its own time (the queue's visibility runs on the stack's clock).

const START = new Date("2027-06-01T09:00:00.000Z");

describe("webhooks on the local stack (npm start)", () => {
  let local: LocalStack;
  let receiver: RecordingServer;
  let answers: number[];
  let billing: BillingClient;
  /** When each request arrived, on the stack's clock. */
  const arrivals: number[] = [];

  beforeAll(async () => {
    answers = [500, 500, 503];
    receiver = await startRecordingServer(() => {
      arrivals.push(local.clock.now().getTime());
      return { status: answers.shift() ?? 200, json: {} };
    });
    local = await LocalStack.start({ port: 0, sandboxPort: 0, realTime: false, start: START });
    billing = createBillingClient({ baseUrl: local.url, apiKey: local.apiKey });
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await receiver?.close();
  });

  it("delivers a sign-up's activation after three refusals, each retry at its time on the jumping clock", async () => {
    const hooks = { url: `${receiver.url}/hooks`, events: ["subscription.activated" as const] };
    const endpoint = await ok(billing.POST("/v1/webhook-endpoints", { body: hooks }));

    const customer = { name: "Local Hooks", email: "local-hooks@example.com" };
    const { subscription_id: id } = await ok(
      billing.POST("/v1/subscriptions", {
        body: {
          customer,
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
        },
      }),
    );
    await local.advanceClock("PT0S");
    expect(receiver.requests).toHaveLength(1);
    const firstAt = local.clock.now().getTime();

    // One jump of 10 minutes: the retries due 1, 3 and 7 minutes after the first attempt each run at their time.
    await local.advanceClock("PT10M");
    expect(arrivals.map((at) => at - firstAt)).toEqual([0, 60_000, 180_000, 420_000]);
    // The client's verifier (the standardwebhooks package within) takes each.
    for (const request of receiver.requests)
      expect(verifyWebhook(request.body, request.headers, endpoint.secret)).toMatchObject({
        type: "subscription.activated",
        subscription_id: id,
      });
    const { data: deliveries } = await ok(
      billing.GET("/v1/webhook-endpoints/{id}/deliveries", { params: { path: { id: endpoint.id } } }),
    );
    expect(deliveries).toMatchObject([{ status: "delivered", attempts: 4, last_status: 200 }]);
  }, 60_000);
});
