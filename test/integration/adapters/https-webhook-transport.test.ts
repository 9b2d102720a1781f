import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createHttpsWebhookTransport,
  WEBHOOK_URL_RULES,
} from "../../../functions/adapters/outside/https-webhook-transport";
import {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  verifySignature,
} from "../../../functions/shared/billing-signature";
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
/** A Standard Webhooks secret: whsec_ and the key in base64. */
const SECRET = `whsec_${Buffer.from("a key of thirty-two bytes, at last").toString("base64")}`;

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
      {
        url: `http://hooks.example.test:${port}/pinned?x=1`,
        secret: SECRET,
        signature_scheme: "standard_webhooks",
      },
      body,
      event,
    );
    expect(outcome).toEqual({ kind: "answered", status: 202 });
    expect(lookups).toBe(1);
    const [request] = receiver.requests;
    expect(request?.headers.host).toBe(`hooks.example.test:${port}`);
    expect(request?.url).toBe("/pinned?x=1");
    expect(request?.body).toBe(body);
  });

  it("signs by the Standard Webhooks spec, at the moment of sending: the standardwebhooks library verifies it", async () => {
    const transport = createHttpsWebhookTransport({ rules: WEBHOOK_URL_RULES.local });
    const body = '{"type":"charge.succeeded","event_id":"e1","amount":"1,000"}';
    const endpoint = {
      url: `${receiver.url}/standard`,
      secret: SECRET,
      signature_scheme: "standard_webhooks",
    } as const;
    expect(await transport.post(endpoint, body, event)).toEqual({ kind: "answered", status: 202 });
    const request = receiver.requests.find((found) => found.url === "/standard");
    const headers = { ...request?.headers } as Record<string, string>;
    expect(headers).toMatchObject({ "webhook-id": "e1", "billing-event-type": "charge.succeeded" });
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers[SIGNATURE_HEADER]).toBeUndefined();
    expect(new Webhook(SECRET).verify(request?.body ?? "", headers)).toEqual(JSON.parse(body));
    // Another body, id or key is refused.
    expect(() => new Webhook(SECRET).verify(`${body} `, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(SECRET).verify(body, { ...headers, "webhook-id": "e2" })).toThrow(
      /No matching signature/,
    );
    expect(() =>
      new Webhook(`whsec_${Buffer.from("another key").toString("base64")}`).verify(body, headers),
    ).toThrow(/No matching signature/);
  });

  it("signs an endpoint registered before Standard Webhooks with billing-signature, at the time its clock gives", async () => {
    const transport = createHttpsWebhookTransport({ rules: WEBHOOK_URL_RULES.local, now: () => at });
    const endpoint = {
      url: `${receiver.url}/legacy`,
      secret: "whsec_Jq8v2Yx0cN4mT6pR1sW9uZ3bE5gK7hL2aD4f-8iO_nM",
      signature_scheme: "billing_signature",
    } as const;
    expect(await transport.post(endpoint, "{}", event)).toEqual({ kind: "answered", status: 202 });
    const request = receiver.requests.find((found) => found.url === "/legacy");
    expect(request?.headers[EVENT_ID_HEADER]).toBe("e1");
    expect(request?.headers["webhook-signature"]).toBeUndefined();
    expect(verifySignature(String(request?.headers[SIGNATURE_HEADER]), "{}", endpoint.secret, at)).toBe(
      "valid",
    );
  });

  it("answers the endpoint's status, a timeout or a refused connection as outcomes, never throwing", async () => {
    const transport = createHttpsWebhookTransport({ rules: WEBHOOK_URL_RULES.local, timeoutMs: 200 });
    const post = (url: string) =>
      transport.post({ url, secret: SECRET, signature_scheme: "standard_webhooks" }, "{}", event);
    expect(await post(`${receiver.url}/gone`)).toEqual({ kind: "answered", status: 410 });
    expect(await post(`${receiver.url}/slow`)).toEqual({ kind: "failed", error: "no answer within 200 ms" });
    expect(await post("http://127.0.0.1:9/closed")).toEqual({
      kind: "failed",
      error: "connection failed (ECONNREFUSED)",
    });
  });
});
