import { setTimeout as sleep } from "node:timers/promises";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { webhookEndpointKey } from "../../../functions/adapters/table/billing-table";
import {
  createdWebhookEndpointView,
  webhookDeliveryListView,
  webhookEndpointListView,
} from "../../../functions/api/merchant-api-views";
import { outboxEventSchema } from "../../../functions/core/base/events";
import {
  WEBHOOK_RETRY_WINDOW_MS,
  webhookAttemptSchedule,
  webhookRetryDelaySeconds,
} from "../../../functions/core/delivery/webhooks";
import {
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  verifySignature,
} from "../../../functions/shared/billing-signature";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { errorOf } from "../../support/merchant-api";
import { spyOnMetrics } from "../../support/metric-spy";
import {
  pathOf,
  type RecordedRequest,
  type RecordingServer,
  startRecordingServer,
} from "../../support/recording-server";
import { stackWithWebhooks } from "../../support/webhook-stack";

// Our signed webhooks to the SaaS (README, Webhooks) through the functions of the table on a billing stack: the
// merchant API's endpoint routes behind the authorizer, the bus's rule invoking queue-webhooks, send-webhooks fed
// from the delivery queue — whose retries wait on the stack's clock — and a real HTTP receiver on loopback (local
// mode's URL rules; the AWS rules are taken with the variables a Lambda function has).

const START = new Date("2027-05-03T08:00:00.000Z");
const DECLINES_ON_RENEWAL = "4000000000000341";
const { stack, call, renew, signUp, renewals } = stackWithWebhooks({ start: START });

let receiver: RecordingServer;
/** Per path: the statuses answered in turn (the last one repeats); "hang" answers after the sender gave up. */
const scripts = new Map<string, (number | "hang")[]>();
/** When each request arrived, on the stack's clock. */
const arrivals = new Map<RecordedRequest, number>();
beforeAll(async () => {
  receiver = await startRecordingServer(async (request) => {
    arrivals.set(request, stack().clock.now().getTime());
    const script = scripts.get(pathOf(request)) ?? [200];
    const next = script.length > 1 ? script.shift() : script[0];
    if (next === "hang") {
      await sleep(1_500);
      return { status: 200 };
    }
    return { status: next ?? 200, json: {} };
  });
});
afterAll(() => receiver?.close());

afterEach(async () => {
  // Every test's endpoints go: the account's cap is shared by the file.
  for (const endpoint of await listEndpoints()) await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`);
  scripts.clear();
  await settle();
  receiver.reset();
  arrivals.clear();
});

/** A webhook's patience in these tests: the sender gives up on a silent endpoint after this. */
const SENDER_TIMEOUT_MS = 500;
const sender = () => new LambdaFunctions(stack().compose({ webhookTimeoutMs: SENDER_TIMEOUT_MS }));

type Endpoint = z.output<typeof createdWebhookEndpointView>;

async function register(path: string, body: Record<string, unknown> = {}): Promise<Endpoint> {
  const answer = await call("POST", "/v1/webhook-endpoints", {
    body: { url: `${receiver.url}${path}`, ...body },
  });
  expect(answer.status, answer.text).toBe(201);
  return createdWebhookEndpointView.parse(answer.json);
}

async function listEndpoints() {
  const answer = await call("GET", "/v1/webhook-endpoints");
  expect(answer.status, answer.text).toBe(200);
  return webhookEndpointListView.parse(answer.json).data;
}

async function deliveriesOf(endpoint: Pick<Endpoint, "id">) {
  const answer = await call("GET", `/v1/webhook-endpoints/${endpoint.id}/deliveries`);
  expect(answer.status, answer.text).toBe(200);
  return webhookDeliveryListView.parse(answer.json).data;
}

/** The events written so far reach the bus, its rules run, and every delivery due now gets its attempt. */
async function settle(): Promise<void> {
  await stack().deliverEvents();
  await stack().drainWebhookQueue(sender());
}

const requestsTo = (path: string) => receiver.requests.filter((request) => pathOf(request) === path);
const eventOf = (request: RecordedRequest) => outboxEventSchema.parse(JSON.parse(request.body));
const arrivedAt = (request: RecordedRequest) => arrivals.get(request) ?? Number.NaN;

/** The bus's events of a subscription, in the order it received them. */
const busEventsOf = async (id: string) =>
  (await stack().events()).filter((event) => event.subscription_id === id);

describe("webhooks to the SaaS", () => {
  it("a registered endpoint receives every event of a sign-up and a renewal as the bus carried it, signed, verifiable and in sequence", async () => {
    const endpoint = await register("/all");
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({
      events: ["*"],
      description: null,
      signature_scheme: "standard_webhooks",
    });
    const id = await signUp();
    await settle();
    const signUpDeliveries = await deliveriesOf(endpoint);
    expect(
      signUpDeliveries.map((delivery) => [delivery.status, delivery.attempts, delivery.last_status]),
    ).toEqual(Array(4).fill(["delivered", 1, 200]));
    await renewals();
    await settle();

    const published = await busEventsOf(id);
    expect(published.map((event) => event.type).sort()).toEqual([
      "charge.succeeded",
      "charge.succeeded",
      "invoice.finalized",
      "invoice.finalized",
      "subscription.activated",
      "subscription.created",
      "subscription.updated",
    ]);
    const received = requestsTo("/all");
    // By sequence, each with the subscription as it stood: the renewal's charge, placed on the subscription it was
    // charged against, before the paid period it moved the subscription to; the last is the subscription as it is.
    const inSequence = received.map(eventOf).sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
    expect(
      inSequence.map(({ type, sequence, subscription }) => [type, sequence, subscription?.status]),
    ).toEqual([
      ["subscription.created", 1000, "pending"],
      ["charge.succeeded", 1500, "pending"],
      ["invoice.finalized", 1501, "pending"],
      ["subscription.activated", 2000, "active"],
      ["charge.succeeded", 2500, "active"],
      ["invoice.finalized", 2501, "active"],
      ["subscription.updated", 3000, "active"],
    ]);
    const current = await call("GET", `/v1/subscriptions/${id}`);
    expect(inSequence.at(-1)?.subscription).toEqual(current.json);
    expect(
      received
        .map(eventOf)
        .map((event) => event.event_id)
        .sort(),
    ).toEqual(published.map((event) => event.event_id).sort());
    const details = new Map(
      stack().eventBridge.entries.map((entry) => [JSON.parse(entry.Detail).event_id, entry]),
    );
    for (const request of received) {
      const event = eventOf(request);
      // Exactly the bus's detail, byte for byte.
      expect(request.body).toBe(details.get(event.event_id)?.Detail);
      expect(request.method).toBe("POST");
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["webhook-id"]).toBe(event.event_id);
      expect(request.headers[EVENT_TYPE_HEADER]).toBe(event.type);
      expect(request.headers[SIGNATURE_HEADER]).toBeUndefined();
      // Signed by the Standard Webhooks spec, on the wall clock (the library checks the time against it), though
      // the stack's clock stands months away: the library itself verifies it.
      const headers = request.headers as Record<string, string>;
      expect(new Webhook(endpoint.secret).verify(request.body, headers)).toEqual(JSON.parse(request.body));
      expect(() => new Webhook(endpoint.secret).verify(`${request.body} `, headers)).toThrow(
        /No matching signature/,
      );
    }
    // A delivery is kept 30 days: a month on, only the renewal's are listed.
    const deliveries = await deliveriesOf(endpoint);
    expect(
      deliveries.map(({ event_type, status, attempts }) => [event_type, status, attempts]).sort(),
    ).toEqual([
      ["charge.succeeded", "delivered", 1],
      ["invoice.finalized", "delivered", 1],
      ["subscription.updated", "delivered", 1],
    ]);
    // The listing never shows a secret.
    expect(JSON.stringify(await listEndpoints())).not.toContain("whsec_");
  });

  it("an endpoint that answers 500, then nothing, is retried after 1, 2 and 4 minutes of the stack's clock and delivered at last", async () => {
    scripts.set("/flaky", [500, 500, "hang", 200]);
    const endpoint = await register("/flaky", { events: ["charge.succeeded"] });
    await signUp();
    const firstAt = stack().clock.now().getTime();
    await settle();
    const [first] = await deliveriesOf(endpoint);
    expect(first).toMatchObject({
      status: "retrying",
      attempts: 1,
      last_status: 500,
      last_error: null,
      next_attempt_at: new Date(firstAt + 60_000).toISOString(),
    });
    // Real time passes, the stack's clock does not: nothing is due.
    await sleep(50);
    expect(await stack().drainWebhookQueue(sender())).toMatchObject({ processed: 0 });
    await stack().clock.advance(59_000);
    expect(await stack().drainWebhookQueue(sender())).toMatchObject({ processed: 0 });
    await stack().clock.advance(1_000);
    await stack().drainWebhookQueue(sender());
    expect(requestsTo("/flaky")).toHaveLength(2);
    await stack().clock.advance(120_000);
    await stack().drainWebhookQueue(sender());
    const [timedOut] = await deliveriesOf(endpoint);
    expect(timedOut).toMatchObject({ status: "retrying", attempts: 3, last_status: null });
    expect(timedOut?.last_error).toBe("no answer within 500 ms");
    await stack().clock.advance(240_000);
    await stack().drainWebhookQueue(sender());

    const [delivered] = await deliveriesOf(endpoint);
    expect(delivered).toMatchObject({
      status: "delivered",
      attempts: 4,
      last_status: 200,
      next_attempt_at: null,
    });
    const offsets = requestsTo("/flaky").map((request) => arrivedAt(request) - firstAt);
    expect(offsets).toEqual([0, 60_000, 180_000, 420_000]);
    expect(new Set(requestsTo("/flaky").map((request) => request.body)).size).toBe(1);
  });

  it("an endpoint that fails for 3 days gets the whole schedule, then its delivery is failed and counted for the alarm", async () => {
    scripts.set("/down", [503]);
    const endpoint = await register("/down", { events: ["subscription.activated"] });
    await signUp();
    const firstAt = stack().clock.now().getTime();
    const metrics = spyOnMetrics();
    await settle();
    for (;;) {
      const [delivery] = await deliveriesOf(endpoint);
      if (delivery?.status !== "retrying") break;
      await stack().clock.set(new Date(delivery.next_attempt_at ?? ""));
      await stack().drainWebhookQueue(sender());
    }
    const [failed] = await deliveriesOf(endpoint);
    const schedule = webhookAttemptSchedule();
    expect(failed).toMatchObject({ status: "failed", attempts: schedule.length, last_status: 503 });
    expect(requestsTo("/down").map((request) => (arrivedAt(request) - firstAt) / 1000)).toEqual(schedule);
    // The last attempt falls inside the 3 days; the one after it would not.
    const last = schedule.at(-1) ?? 0;
    expect(last * 1000).toBeLessThanOrEqual(WEBHOOK_RETRY_WINDOW_MS);
    expect((last + webhookRetryDelaySeconds(schedule.length)) * 1000).toBeGreaterThan(
      WEBHOOK_RETRY_WINDOW_MS,
    );
    expect(metrics.values()).toMatchObject({ WebhookDeliveriesFailed: 1 });
    // Nothing is left to send: the message is gone, not in the dead letters.
    await stack().clock.advance("P1D");
    expect(await stack().drainWebhookQueue(sender())).toMatchObject({ processed: 0 });
    expect(requestsTo("/down")).toHaveLength(schedule.length);
  });

  it("an endpoint registered before Standard Webhooks (its record names no scheme) keeps its billing-signature", async () => {
    const legacy = {
      endpoint_id: "we_1egacy0000000000",
      slot: 15,
      url: `${receiver.url}/legacy`,
      events: ["subscription.created"],
      secret: "whsec_Jq8v2Yx0cN4mT6pR1sW9uZ3bE5gK7hL2aD4f-8iO_nM",
      created_at: "2027-01-01T00:00:00.000Z",
    };
    await stack().dynamo.client.send(
      new PutCommand({
        TableName: stack().tableName,
        Item: { ...webhookEndpointKey(legacy.slot), ...legacy },
      }),
    );
    expect(await listEndpoints()).toContainEqual(
      expect.objectContaining({ id: legacy.endpoint_id, signature_scheme: "billing_signature" }),
    );
    await signUp();
    await settle();
    const [request] = requestsTo("/legacy");
    expect(request?.headers).toMatchObject({
      [EVENT_ID_HEADER]: eventOf(request as RecordedRequest).event_id,
    });
    expect(request?.headers["webhook-signature"]).toBeUndefined();
    const header = String(request?.headers[SIGNATURE_HEADER]);
    expect(verifySignature(header, request?.body ?? "", legacy.secret, new Date())).toBe("valid");
    expect(verifySignature(header, `${request?.body} `, legacy.secret, new Date())).toBe("mismatch");
  });

  it("a replay delivers the logged events again: through the bus to every endpoint, or to one endpoint alone", async () => {
    const first = await register("/replay-a");
    await register("/replay-b");
    const id = await signUp();
    await settle();
    const original = requestsTo("/replay-a").map((request) => eventOf(request).event_id);
    expect(original).toHaveLength(4);
    expect(requestsTo("/replay-b")).toHaveLength(4);

    await stack().functions.invoke("replay-events", { subscription_id: id });
    await settle();
    expect(
      requestsTo("/replay-a")
        .map((request) => eventOf(request).event_id)
        .sort(),
    ).toEqual([...original, ...original].sort());
    expect(requestsTo("/replay-b")).toHaveLength(8);

    const report = await stack().functions.invoke("replay-events", {
      subscription_id: id,
      endpoint_id: first.id,
    });
    expect(report).toMatchObject({ published: 4 });
    await settle();
    expect(requestsTo("/replay-a")).toHaveLength(12);
    expect(requestsTo("/replay-b")).toHaveLength(8);
    expect((await deliveriesOf(first)).filter((delivery) => delivery.status === "delivered")).toHaveLength(
      12,
    );
    await expect(
      stack().functions.invoke("replay-events", { subscription_id: id, endpoint_id: "we_zzzzzzzzzzzzzzzz" }),
    ).rejects.toThrow("no such webhook endpoint");
  });

  it("an endpoint subscribed to some event types gets only those", async () => {
    const endpoint = await register("/some", { events: ["subscription.activated", "charge.failed"] });
    expect(endpoint.events).toEqual(["subscription.activated", "charge.failed"]);
    await signUp(DECLINES_ON_RENEWAL);
    await settle();
    await renewals();
    await settle();
    expect(requestsTo("/some").map((request) => eventOf(request).type)).toEqual([
      "subscription.activated",
      "charge.failed",
    ]);
  });

  it("a deleted endpoint receives nothing more, not even a retry that was due", async () => {
    scripts.set("/gone", [500, 200]);
    const endpoint = await register("/gone");
    await signUp();
    await settle();
    expect(requestsTo("/gone")).toHaveLength(4);
    const deleted = await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({
      id: endpoint.id,
      url: endpoint.url,
      events: ["*"],
      description: null,
      signature_scheme: "standard_webhooks",
      created_at: endpoint.created_at,
    });
    await signUp();
    await stack().clock.advance("PT1H");
    await settle();
    expect(requestsTo("/gone")).toHaveLength(4);
    expect((await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await call("GET", `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).status).toBe(404);
  });
});

describe("webhook endpoints", () => {
  it("refuses http, and hosts that are or resolve to private addresses, under a Lambda function's variables", async () => {
    renew({ WEBHOOK_URL_POLICY: undefined });
    const refusals: [string, string][] = [
      [`${receiver.url}/hook`, "must use https"],
      ["https://127.0.0.1/hook", "must not resolve to a private, loopback, link-local or reserved address"],
      [
        "https://localhost:8443/hook",
        "must not resolve to a private, loopback, link-local or reserved address",
      ],
      ["https://10.1.2.3/hook", "must not resolve to a private, loopback, link-local or reserved address"],
      [
        "https://169.254.169.254/latest/meta-data",
        "must not resolve to a private, loopback, link-local or reserved address",
      ],
      [
        "https://[::ffff:192.168.0.1]/hook",
        "must not resolve to a private, loopback, link-local or reserved address",
      ],
      [
        "https://[fd00:ec2::254]/hook",
        "must not resolve to a private, loopback, link-local or reserved address",
      ],
      [
        "https://100.100.100.200/hook",
        "must not resolve to a private, loopback, link-local or reserved address",
      ],
      ["https://user:pass@hooks.example.com/hook", "must not carry credentials"],
    ];
    for (const [url, message] of refusals) {
      const answer = await call("POST", "/v1/webhook-endpoints", { body: { url } });
      expect([url, answer.status, errorOf(answer)]).toEqual([
        url,
        400,
        { code: "invalid_request", message, field: "url" },
      ]);
      expect(answer.text).not.toContain(new URL(url).hostname.replace(/^\[|\]$/g, ""));
    }
    expect(await listEndpoints()).toEqual([]);
  });

  it("refuses at send time what the URL rules refuse, under a Lambda function's variables", async () => {
    const endpoint = await register("/local-only", { events: ["subscription.activated"] });
    await signUp();
    await stack().deliverEvents();
    const onAws = new LambdaFunctions(stack().compose({}, { WEBHOOK_URL_POLICY: undefined }));
    await stack().drainWebhookQueue(onAws);
    expect(requestsTo("/local-only")).toEqual([]);
    const [delivery] = await deliveriesOf(endpoint);
    expect(delivery).toMatchObject({
      status: "retrying",
      attempts: 1,
      last_status: null,
      last_error: "the URL must use https",
    });
  });

  it("names the field of a bad request without repeating its value", async () => {
    const cases: [unknown, string][] = [
      [{}, "url"],
      [{ url: "ftp://files.example.com/x" }, "url"],
      [{ url: "not a url at all" }, "url"],
      [{ url: `${receiver.url}/x`, events: ["charge.refunded_twice"] }, "events.0"],
      [{ url: `${receiver.url}/x`, events: [] }, "events"],
      [{ url: `${receiver.url}/x`, events: ["*", "charge.failed"] }, "events"],
      [{ url: `${receiver.url}/x`, events: ["charge.failed", "charge.failed"] }, "events"],
      [{ url: `${receiver.url}/x`, description: "d".repeat(201) }, "description"],
      [{ url: `${receiver.url}/x`, secret: "whsec_mine" }, "secret"],
    ];
    for (const [body, field] of cases) {
      const answer = await call("POST", "/v1/webhook-endpoints", { body });
      expect([JSON.stringify(body), answer.status, errorOf(answer).field]).toEqual([
        JSON.stringify(body),
        400,
        field,
      ]);
      expect(answer.text).not.toMatch(/ftp:|not a url|refunded_twice|ddddd|whsec_mine/);
    }
    expect((await call("DELETE", "/v1/webhook-endpoints/sub_123")).status).toBe(400);
    const unknown = await call("GET", "/v1/webhook-endpoints/we_zzzzzzzzzzzzzzzz/deliveries");
    expect(unknown.status, unknown.text).toBe(404);
  });

  it("keeps at most 16 endpoints, and a repeated Idempotency-Key answers the same endpoint", async () => {
    const first = await call("POST", "/v1/webhook-endpoints", {
      body: { url: `${receiver.url}/k`, description: "billing sync" },
      idempotencyKey: "endpoint-1",
    });
    const again = await call("POST", "/v1/webhook-endpoints", {
      body: { url: `${receiver.url}/k`, description: "billing sync" },
      idempotencyKey: "endpoint-1",
    });
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json).toEqual(first.json);
    for (let index = 1; index < 16; index++) await register(`/n${index}`);
    const full = await call("POST", "/v1/webhook-endpoints", { body: { url: `${receiver.url}/17` } });
    expect([full.status, errorOf(full).code]).toEqual([409, "too_many_webhook_endpoints"]);
    expect(await listEndpoints()).toHaveLength(16);
  });
});
