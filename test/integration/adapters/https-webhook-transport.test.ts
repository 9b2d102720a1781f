import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createHttpsWebhookTransport,
  WEBHOOK_URL_RULES,
} from "../../../functions/adapters/outside/https-webhook-transport";
import { SIGNATURE_HEADER, verifySignature } from "../../../functions/shared/billing-signature";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

// The signed POST over a real socket to a receiver on loopback.

let receiver: RecordingServer;
beforeAll(async () => {
  receiver = await startRecordingServer((request) =>
    request.url === "/slow" ? new Promise(() => undefined) : { status: request.url === "/gone" ? 410 : 202 },
  );
});
afterAll(() => receiver.close());

const event = { event_id: "e1", type: "charge.succeeded" };
const at = new Date("2027-05-03T08:00:00.000Z");

describe("the webhook transport", () => {
  it("connects to the address it checked, however the name resolves later, keeping the URL's host in Host", async () => {
    const port = new URL(receiver.url).port;
    let lookups = 0;
    // Rules that take only loopback: what the public rules do with public addresses.
    const transport = createHttpsWebhookTransport({
      rules: { schemes: ["http:"], allows: (address) => address === "127.0.0.1" },
      resolve: async () => {
        lookups += 1;
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    const body = '{"type":"charge.succeeded","event_id":"e1"}';
    const outcome = await transport.post(
      { url: `http://hooks.example.test:${port}/pinned?x=1`, secret: "whsec_pin" },
      body,
      event,
      at,
    );
    expect(outcome).toEqual({ kind: "answered", status: 202 });
    expect(lookups).toBe(1);
    const [request] = receiver.requests;
    expect(request?.headers.host).toBe(`hooks.example.test:${port}`);
    expect(request?.url).toBe("/pinned?x=1");
    expect(request?.body).toBe(body);
    expect(verifySignature(String(request?.headers[SIGNATURE_HEADER]), body, "whsec_pin", at)).toBe("valid");
  });

  it("answers the endpoint's status, a timeout or a refused connection as outcomes, never throwing", async () => {
    const transport = createHttpsWebhookTransport({ rules: WEBHOOK_URL_RULES.local, timeoutMs: 200 });
    const post = (url: string) => transport.post({ url, secret: "whsec_x" }, "{}", event, at);
    expect(await post(`${receiver.url}/gone`)).toEqual({ kind: "answered", status: 410 });
    expect(await post(`${receiver.url}/slow`)).toEqual({ kind: "failed", error: "no answer within 200 ms" });
    expect(await post("http://127.0.0.1:9/closed")).toEqual({
      kind: "failed",
      error: "connection failed (ECONNREFUSED)",
    });
  });
});
