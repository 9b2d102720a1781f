import { describe, expect, it } from "vitest";
import {
  attemptWebhookDelivery,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  isSubscribed,
  queueWebhookDeliveries,
  WEBHOOK_MAX_RECEIVE_COUNT,
  WEBHOOK_RETRY_WINDOW_MS,
  webhookAttemptSchedule,
  webhookRetryDelaySeconds,
} from "../../../../functions/core/delivery/webhooks";
import {
  MAX_WEBHOOK_ENDPOINTS,
  type WebhookDelivery,
  type WebhookDeliveryMessage,
  type WebhookEndpoint,
  type WebhookPostOutcome,
  type WebhookStore,
  webhookEventTypes,
} from "../../../../functions/core/ports/webhook-ports";

/** The store's contract in memory: create-only slots, create-only deliveries, updates compared on attempts. */
function memoryStore() {
  const endpoints = new Map<number, WebhookEndpoint>();
  const deliveries = new Map<string, WebhookDelivery>();
  const keyOf = (d: Pick<WebhookDelivery, "endpoint_id" | "created_at" | "delivery_id">) =>
    `${d.endpoint_id}/${d.created_at}/${d.delivery_id}`;
  const store: WebhookStore & { before?: () => void } = {
    async listEndpoints() {
      return [...endpoints.values()];
    },
    async getEndpoint(slot, id) {
      const found = endpoints.get(slot);
      return found?.endpoint_id === id ? found : undefined;
    },
    async putEndpoint(endpoint) {
      store.before?.();
      if (endpoints.has(endpoint.slot)) return false;
      endpoints.set(endpoint.slot, endpoint);
      return true;
    },
    async deleteEndpoint(endpoint) {
      if (endpoints.get(endpoint.slot)?.endpoint_id !== endpoint.endpoint_id) return false;
      return endpoints.delete(endpoint.slot);
    },
    async getDelivery(key) {
      return deliveries.get(keyOf(key));
    },
    async createDelivery(delivery) {
      if (deliveries.has(keyOf(delivery))) return false;
      deliveries.set(keyOf(delivery), delivery);
      return true;
    },
    async updateDelivery(delivery, previous) {
      if (deliveries.get(keyOf(delivery))?.attempts !== previous) return false;
      deliveries.set(keyOf(delivery), delivery);
      return true;
    },
    async listDeliveries(endpointId) {
      return [...deliveries.values()].filter((d) => d.endpoint_id === endpointId);
    },
  };
  return { store, endpoints, deliveries };
}

let counter = 0;
const ids = {
  webhookEndpointId: () => `we_${String(++counter).padStart(16, "a")}`,
  webhookEndpointIdFor: (key: string) => `we_key_${key}`,
  webhookSecret: () => `whsec_${counter}`,
  webhookDeliveryId: (source: string) => `wd_${source}`,
};
const clockAt = (at: Date) => ({ now: () => at });
const accepting = { refusalOf: async () => undefined };

describe("the retry schedule", () => {
  it("waits 1 minute, then doubles, never more than 6 hours", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20].map(webhookRetryDelaySeconds)).toEqual([
      60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 21600, 21600, 21600, 21600,
    ]);
  });

  it("tries for 3 days from the first attempt: 20 attempts, the last after 68.5 hours", () => {
    const schedule = webhookAttemptSchedule();
    expect(schedule.slice(0, 6)).toEqual([0, 60, 180, 420, 900, 1860]);
    expect(schedule).toHaveLength(20);
    expect(schedule.at(-1)).toBe(246_660);
    expect((schedule.at(-1) ?? 0) * 1000).toBeLessThanOrEqual(WEBHOOK_RETRY_WINDOW_MS);
    // The queue's redrive leaves room for every attempt and as many again.
    expect(WEBHOOK_MAX_RECEIVE_COUNT).toBe(40);
  });
});

describe("endpoints", () => {
  const request = { url: "https://hooks.example.com/billing", events: ["*" as const] };

  it("are created in free slots up to the cap, signed by Standard Webhooks; a repeated key finds the first", async () => {
    const { store } = memoryStore();
    const deps = { store, transport: accepting, ids, clock: clockAt(new Date("2027-01-01T00:00:00Z")) };
    const first = await createWebhookEndpoint(request, "k1", deps);
    expect(first).toMatchObject({
      kind: "created",
      endpoint: { endpoint_id: "we_key_k1", slot: 0, signature_scheme: "standard_webhooks" },
    });
    expect(await createWebhookEndpoint(request, "k1", deps)).toEqual(first);
    for (let index = 1; index < MAX_WEBHOOK_ENDPOINTS; index++)
      expect(await createWebhookEndpoint(request, undefined, deps)).toMatchObject({
        endpoint: { slot: index },
      });
    expect(await createWebhookEndpoint(request, undefined, deps)).toEqual({ kind: "full" });
    const third = (await store.listEndpoints()).find((endpoint) => endpoint.slot === 2);
    expect(await deleteWebhookEndpoint(third?.endpoint_id ?? "", deps)).toEqual(third);
    expect(await createWebhookEndpoint(request, undefined, deps)).toMatchObject({ endpoint: { slot: 2 } });
  });

  it("take the next free slot when a concurrent registration took theirs", async () => {
    const { store, endpoints } = memoryStore();
    const raced = {
      ...request,
      endpoint_id: "we_other",
      slot: 0,
      secret: "s",
      signature_scheme: "standard_webhooks" as const,
      created_at: "2027-01-01T00:00:00.000Z",
    };
    store.before = () => {
      store.before = undefined;
      endpoints.set(0, { ...raced, events: ["*"] });
    };
    const created = await createWebhookEndpoint(request, undefined, {
      store,
      transport: accepting,
      ids,
      clock: clockAt(new Date()),
    });
    expect(created).toMatchObject({ kind: "created", endpoint: { slot: 1 } });
  });

  it("are refused as the transport refuses their URL, naming the url field; '*' stands for every type", async () => {
    const { store } = memoryStore();
    const refusing = { refusalOf: async () => "must use https" };
    const deps = { store, transport: refusing, ids, clock: clockAt(new Date()) };
    expect(await createWebhookEndpoint(request, undefined, deps)).toEqual({
      kind: "invalid_input",
      field: "url",
      message: "must use https",
    });
    expect(isSubscribed({ events: ["*"] }, "refund.failed")).toBe(true);
    expect(isSubscribed({ events: ["charge.failed"] }, "charge.succeeded")).toBe(false);
    expect(webhookEventTypes()).toContain("chargeback.updated");
    expect(webhookEventTypes()).toContain("checkout.expired");
    expect(webhookEventTypes()).toContain("invoice.finalized");
    expect(webhookEventTypes()).toContain("credit_note.created");
    expect(webhookEventTypes()).toHaveLength(20);
  });
});

describe("the fan-out", () => {
  it("queues the event, as its JSON, once per subscribed endpoint, under ids its source names", async () => {
    const { store, endpoints } = memoryStore();
    const base = {
      url: "https://h.example.com",
      secret: "s",
      signature_scheme: "standard_webhooks" as const,
      created_at: "2027-01-01T00:00:00.000Z",
    };
    endpoints.set(0, { ...base, endpoint_id: "we_all", slot: 0, events: ["*"] });
    endpoints.set(1, { ...base, endpoint_id: "we_fail", slot: 1, events: ["charge.failed"] });
    endpoints.set(2, { ...base, endpoint_id: "we_ok", slot: 2, events: ["charge.succeeded"] });
    const sent: WebhookDeliveryMessage[] = [];
    const queue = {
      send: async (messages: readonly WebhookDeliveryMessage[]) => void sent.push(...messages),
    };
    const event = {
      type: "charge.succeeded",
      subscription_id: "sub_1",
      event_id: "e1",
      extra: { b: 1, a: 2 },
    } as const;
    const source = { id: "bus-entry-1", time: "2027-02-01T10:00:00Z" };
    expect(await queueWebhookDeliveries(source, event, { store, queue, ids })).toBe(2);
    expect(sent).toEqual([
      {
        delivery_id: "wd_bus-entry-1:we_all",
        endpoint_id: "we_all",
        slot: 0,
        created_at: "2027-02-01T10:00:00.000Z",
        event_id: "e1",
        event_type: "charge.succeeded",
        body: JSON.stringify(event),
      },
      expect.objectContaining({ endpoint_id: "we_ok", delivery_id: "wd_bus-entry-1:we_ok" }),
    ]);
    expect(await queueWebhookDeliveries(source, event, { store, queue, ids }, "we_ok")).toBe(1);
    expect(
      await queueWebhookDeliveries(
        source,
        { ...event, type: "refund.failed" },
        { store, queue, ids },
        "we_ok",
      ),
    ).toBe(0);
  });
});

describe("an attempt", () => {
  const T0 = new Date("2027-03-01T00:00:00.000Z");
  const endpoint: WebhookEndpoint = {
    endpoint_id: "we_1",
    slot: 3,
    url: "https://h.example.com/x",
    events: ["*"],
    secret: "whsec_1",
    signature_scheme: "standard_webhooks",
    created_at: "2027-01-01T00:00:00.000Z",
  };
  const message: WebhookDeliveryMessage = {
    delivery_id: "wd_1",
    endpoint_id: "we_1",
    slot: 3,
    created_at: T0.toISOString(),
    event_id: "e1",
    event_type: "charge.succeeded",
    body: '{"type":"charge.succeeded","event_id":"e1"}',
  };
  function setup(outcomes: WebhookPostOutcome[]) {
    const memory = memoryStore();
    memory.endpoints.set(3, endpoint);
    const posts: { body: string; at: Date }[] = [];
    let now = T0;
    const deps = {
      store: memory.store,
      clock: { now: () => now },
      transport: {
        post: async (_target: unknown, body: string) => {
          posts.push({ body, at: now });
          return outcomes.shift() ?? { kind: "answered" as const, status: 200 };
        },
      },
    };
    return { ...memory, deps, posts, moveTo: (at: Date) => (now = at) };
  }

  it("a 2xx delivers; a 5xx or no answer retries after the backoff", async () => {
    const { deps, posts, moveTo } = setup([
      { kind: "answered", status: 500 },
      { kind: "failed", error: "no answer within 10 s" },
      { kind: "answered", status: 204 },
    ]);
    const first = await attemptWebhookDelivery(message, "m1", deps);
    expect(first).toMatchObject({
      outcome: "retrying",
      work: { kind: "retry", delaySeconds: 60 },
      delivery: { attempts: 1, last_status: 500, next_attempt_at: "2027-03-01T00:01:00.000Z" },
    });
    // Woken early: put back until its time, nothing sent.
    moveTo(new Date("2027-03-01T00:00:30Z"));
    expect(await attemptWebhookDelivery(message, "m1", deps)).toMatchObject({
      outcome: "not_due",
      work: { kind: "retry", delaySeconds: 30 },
    });
    moveTo(new Date("2027-03-01T00:01:00Z"));
    expect(await attemptWebhookDelivery(message, "m1", deps)).toMatchObject({
      outcome: "retrying",
      work: { delaySeconds: 120 },
      delivery: { attempts: 2, last_error: "no answer within 10 s" },
    });
    const second = await deps.store.getDelivery(message);
    expect(second?.last_status).toBeUndefined();
    moveTo(new Date("2027-03-01T00:03:00Z"));
    expect(await attemptWebhookDelivery(message, "m1", deps)).toMatchObject({
      outcome: "delivered",
      work: { kind: "done" },
      delivery: { status: "delivered", attempts: 3, last_status: 204, first_attempt_at: T0.toISOString() },
    });
    expect(posts.map((post) => post.body)).toEqual(Array(3).fill(message.body));
    // Delivered: a later receive of the message sends nothing.
    expect(await attemptWebhookDelivery(message, "m1", deps)).toMatchObject({ outcome: "duplicate" });
    expect(posts).toHaveLength(3);
  });

  it("fails once the next attempt would fall past 3 days from the first", async () => {
    const { deps, moveTo } = setup(
      Array.from({ length: 30 }, () => ({ kind: "answered" as const, status: 410 })),
    );
    const outcomes = [];
    for (const offset of webhookAttemptSchedule()) {
      moveTo(new Date(T0.getTime() + offset * 1000));
      outcomes.push((await attemptWebhookDelivery(message, "m1", deps)).outcome);
    }
    expect(outcomes.slice(0, -1)).toEqual(Array(19).fill("retrying"));
    expect(outcomes.at(-1)).toBe("failed");
    expect(await deps.store.getDelivery(message)).toMatchObject({ status: "failed", attempts: 20 });
  });

  it("the same message received twice at once keeps it for the next attempt, whichever records first", async () => {
    const { deps } = setup([
      { kind: "answered", status: 503 },
      { kind: "answered", status: 503 },
    ]);
    const [one, other] = await Promise.all([
      attemptWebhookDelivery(message, "m1", deps),
      attemptWebhookDelivery(message, "m1", deps),
    ]);
    // One attempt is recorded; the other is not counted, and its receive is put back until the next attempt's time
    // rather than deleted: the delivery, retrying on this message, would never be tried again.
    expect([one.outcome, other.outcome].sort()).toEqual(["not_due", "retrying"]);
    for (const attempt of [one, other])
      expect(attempt.work).toMatchObject({ kind: "retry", delaySeconds: 60 });
    expect(await deps.store.getDelivery(message)).toMatchObject({ status: "retrying", attempts: 1 });
  });

  it("another message for the same delivery (a repeated fan-out) sends nothing", async () => {
    const { deps, posts } = setup([{ kind: "answered", status: 500 }]);
    await attemptWebhookDelivery(message, "m1", deps);
    expect(await attemptWebhookDelivery(message, "m2", deps)).toMatchObject({
      outcome: "duplicate",
      work: { kind: "done" },
    });
    expect(posts).toHaveLength(1);
  });

  it("a deleted endpoint (or its slot taken by another) gets nothing", async () => {
    const { deps, endpoints, posts } = setup([]);
    endpoints.set(3, { ...endpoint, endpoint_id: "we_newer" });
    expect(await attemptWebhookDelivery(message, "m1", deps)).toMatchObject({
      outcome: "endpoint_deleted",
      work: { kind: "done" },
    });
    expect(posts).toEqual([]);
  });
});
