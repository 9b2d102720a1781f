import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { outboxEventSchema } from "../../../functions/core/base/events";
import { SIGNATURE_HEADER, verifySignature } from "../../../functions/shared/billing-signature";
import { MerchantClient } from "../../../local/clients/merchant-client";
import { forwardEvents } from "../../../local/stack/forward-events";
import { LocalStack } from "../../../local/stack/local-stack";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

// `npm start -- --forward-events <url>`: local mode registers a webhook endpoint of its own through the merchant API,
// so every event reaches a program on this machine signed as on AWS; a restart with the same URL replaces it.

let local: LocalStack;
let receiver: RecordingServer;

beforeAll(async () => {
  local = await LocalStack.start({
    port: 0,
    sandboxPort: 0,
    realTime: false,
    start: new Date("2027-03-01T10:30:00Z"),
  });
  receiver = await startRecordingServer(() => ({ status: 204 }));
}, 60_000);

afterAll(async () => {
  await local?.close();
  await receiver?.close();
});

describe("forward events", () => {
  it("POSTs every event of a sign-up to the URL, each verifiable under the printed secret", async () => {
    const url = `${receiver.url}/billing-events`;
    await forwardEvents(local.url, local.apiKey, url);
    const { secret } = await forwardEvents(local.url, local.apiKey, url);
    const client = new MerchantClient(local.url, local.apiKey);
    const endpoints = await client.get(
      "/v1/webhook-endpoints",
      z.object({ data: z.array(z.looseObject({ url: z.string() })) }),
    );
    expect(endpoints.data.filter((endpoint) => endpoint.url === url)).toHaveLength(1);

    const answer = await client.post(
      "/v1/subscriptions",
      {
        customer: { name: "Forwarded", email: "forwarded@example.com" },
        plan: { amount: "19.90", currency: "USD", interval_months: 1 },
        card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
      },
      "forward-events-signup",
    );
    expect(answer.status).toBe(201);
    await local.advanceClock("PT0S");

    const received = receiver.requests.map((request) => ({
      check: verifySignature(
        z.string().optional().parse(request.headers[SIGNATURE_HEADER]),
        request.body,
        secret,
        local.clock.now(),
      ),
      event: outboxEventSchema.parse(JSON.parse(request.body)),
    }));
    expect(received.map(({ event }) => event.type)).toEqual(
      expect.arrayContaining(["subscription.created", "charge.succeeded", "subscription.activated"]),
    );
    expect(received.every(({ check }) => check === "valid")).toBe(true);
  });
});
