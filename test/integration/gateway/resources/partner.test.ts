import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PAYMENT_COMPLETED_EVENT } from "../../../../functions/core/partner/partner-webhook-setup";
import type { GatewayConfigInput } from "../../../../functions/gateway/config";
import { createGatewayContext, type GatewayContext } from "../../../../functions/gateway/context";
import { GatewayRequestError } from "../../../../functions/gateway/errors";
import {
  createInMemoryPartnerTokenStore,
  createPartnerTokenProvider,
  PARTNER_TOKEN_PATH,
  type PartnerTokenStore,
} from "../../../../functions/gateway/partner-token";
import { createPartnerClient, type PartnerClient } from "../../../../functions/gateway/resources/partner";
import {
  partnerToken,
  partnerWebhookEvent,
  webhookListResponse,
} from "../../../../functions/gateway/schemas/partner";

const HOUR = 60 * 60 * 1000;
const PARTNER_KEY = "test-partner-key";
const WEBHOOKS = "/api/v1/partner/merchants";
const jsonObject = z.record(z.string(), z.unknown());

interface Recorded {
  readonly method: string;
  /** Raw request target, as encoded on the wire. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

/** A small partner API: issues tokens (valid 24 h from the test clock), answers AUTH_3001 to revoked ones. */
class PartnerApi {
  readonly requests: Recorded[] = [];
  readonly issued: string[] = [];
  readonly revoked = new Set<string>();
  revokeEveryToken = false;
  /** Replies served before the normal behaviour, keyed by "METHOD path". */
  readonly scripted = new Map<string, Reply[]>();
  private readonly subscriptions = new Map<string, Record<string, unknown>>();
  private readonly server: Server;
  url = "";

  constructor(private readonly clock: () => Date) {
    this.server = createServer((request, response) => {
      let raw = "";
      request.on("data", (chunk: Buffer) => {
        raw += chunk.toString();
      });
      request.on("end", () => {
        const recorded = {
          method: request.method ?? "",
          path: request.url ?? "",
          headers: request.headers,
          body: raw === "" ? undefined : JSON.parse(raw),
        };
        this.requests.push(recorded);
        const reply =
          this.scripted.get(`${recorded.method} ${recorded.path}`)?.shift() ?? this.answer(recorded);
        response.writeHead(reply.status, { "content-type": "application/json" });
        response.end(JSON.stringify(reply.body));
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    if (address === null || typeof address === "string") throw new Error("not listening on TCP");
    this.url = `http://127.0.0.1:${address.port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  script(method: string, path: string, ...replies: Reply[]): void {
    this.scripted.set(`${method} ${path}`, replies);
  }

  tokenRequests(): Recorded[] {
    return this.requests.filter((request) => request.path === PARTNER_TOKEN_PATH);
  }

  apiRequests(): Recorded[] {
    return this.requests.filter((request) => request.path !== PARTNER_TOKEN_PATH);
  }

  private answer(request: Recorded): Reply {
    if (request.path === PARTNER_TOKEN_PATH) return this.issueToken(request);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token || !this.issued.includes(token) || this.revoked.has(token) || this.revokeEveryToken) {
      return { status: 401, body: { code: "AUTH_3001", message: "The token is invalid." } };
    }
    return this.webhooks(request);
  }

  private issueToken(request: Recorded): Reply {
    if (request.headers.apikey !== PARTNER_KEY)
      return { status: 401, body: { code: "AUTH_3000", message: "no" } };
    const payload = Buffer.from(JSON.stringify({ n: this.issued.length + 1 })).toString("base64url");
    const token = `eyJhbGciOiJIUzI1NiJ9.${payload}.sig${this.issued.length + 1}`;
    this.issued.push(token);
    const expiredAt = new Date(this.clock().getTime() + 24 * HOUR).toISOString();
    return ok({ token, expiredAt });
  }

  private webhooks(request: Recorded): Reply {
    const publicId = /\/webhooks\/([^/]+)$/.exec(request.path)?.[1];
    const body = jsonObject.parse(request.body ?? {});
    if (request.method === "POST") {
      const id = `wh_${this.subscriptions.size + 1}`;
      const created = {
        id,
        ...body,
        isActive: true,
        createdAt: "2025-01-01T00:00:00.000Z",
        extra: "ignored",
      };
      this.subscriptions.set(id, created);
      return ok(created);
    }
    if (request.method === "GET") return ok([...this.subscriptions.values()]);
    const existing = publicId ? this.subscriptions.get(publicId) : undefined;
    if (!publicId || !existing) return { status: 404, body: { code: "CMN_4040", message: "not found" } };
    if (request.method === "PUT") {
      const updated = { ...existing, ...body };
      this.subscriptions.set(publicId, updated);
      return ok(updated);
    }
    this.subscriptions.delete(publicId);
    return { status: 200, body: { code: "CMN_0000", message: "Success" } };
  }
}

const ok = (data: unknown): Reply => ({ status: 200, body: { code: "CMN_0000", message: "Success", data } });

const START = new Date("2025-03-01T00:00:00.000Z");
let now: Date;
let api: PartnerApi;

function contextWith(overrides: Partial<GatewayConfigInput> = {}): GatewayContext {
  return createGatewayContext(
    {
      paymentBaseUrl: "http://127.0.0.1:9",
      webhookAdminBaseUrl: "http://127.0.0.1:9",
      partnerBaseUrl: api.url,
      mid: "TESTMID01",
      apiKey: "test-api-key",
      aesKey: "0".repeat(64),
      partnerApiKey: PARTNER_KEY,
      readRetryMinDelayMs: 1,
      ...overrides,
    },
    { now: () => now },
  );
}

function clientWith(overrides: Partial<GatewayConfigInput> = {}, store?: PartnerTokenStore): PartnerClient {
  const context = contextWith(overrides);
  return createPartnerClient(context, createPartnerTokenProvider(context, { store }));
}

const advance = (ms: number) => {
  now = new Date(START.getTime() + ms);
};

beforeEach(async () => {
  now = START;
  api = new PartnerApi(() => now);
  await api.start();
});

afterEach(async () => {
  await api.close();
});

describe("partner access token", () => {
  it("sends the apiKey header, caches the token and sends it as a Bearer token", async () => {
    const client = clientWith();
    expect((await client.listWebhooks()).kind).toBe("success");
    expect((await client.listWebhooks()).kind).toBe("success");

    expect(api.tokenRequests()).toHaveLength(1);
    expect(api.tokenRequests()[0]?.headers.apikey).toBe(PARTNER_KEY);
    expect(api.tokenRequests()[0]?.method).toBe("GET");
    expect(api.apiRequests().map((request) => request.headers.authorization)).toEqual([
      `Bearer ${api.issued[0]}`,
      `Bearer ${api.issued[0]}`,
    ]);
  });

  it("keeps the token while more than 2 h of its 24 h remain and refreshes it after", async () => {
    const client = clientWith();
    await client.listWebhooks();

    advance(21 * HOUR);
    await client.listWebhooks();
    advance(21 * HOUR + 59 * 60 * 1000); // 2 h 01 min left
    await client.listWebhooks();
    expect(api.tokenRequests()).toHaveLength(1);

    advance(22 * HOUR + 60 * 1000); // 1 h 59 min left
    await client.listWebhooks();
    expect(api.tokenRequests()).toHaveLength(2);
    expect(api.apiRequests().at(-1)?.headers.authorization).toBe(`Bearer ${api.issued[1]}`);
  });

  it("refreshes at exactly 2 h left (the window is exclusive)", async () => {
    const store = createInMemoryPartnerTokenStore(
      partnerToken.parse({ token: "a.b.c", expiredAt: new Date(START.getTime() + 2 * HOUR).toISOString() }),
    );
    const provider = createPartnerTokenProvider(contextWith(), { store });
    const outcome = await provider.current();
    expect(outcome).toMatchObject({ kind: "success", value: { token: api.issued[0] } });
    expect(await store.get()).toEqual(outcome.kind === "success" ? outcome.value : undefined);
  });

  it("honours a configured refresh window", async () => {
    const context = contextWith();
    const provider = createPartnerTokenProvider(context, { refreshWindowMs: 23 * HOUR });
    await provider.current();
    advance(HOUR + 1);
    await provider.current();
    expect(api.tokenRequests()).toHaveLength(2);
  });

  it("coalesces concurrent refreshes into one token request", async () => {
    const client = clientWith();
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => client.listWebhooks()));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(5).fill("success"));
    expect(api.tokenRequests()).toHaveLength(1);

    advance(23 * HOUR);
    await Promise.all([1, 2, 3].map(() => client.listWebhooks()));
    expect(api.tokenRequests()).toHaveLength(2);
  });

  it("token() requests a new token even while the stored one is fresh, and stores it", async () => {
    const store = createInMemoryPartnerTokenStore();
    const client = clientWith({}, store);
    await client.listWebhooks();
    const outcome = await client.token();

    expect(api.tokenRequests()).toHaveLength(2);
    expect(outcome).toEqual({
      kind: "success",
      value: { token: api.issued[1], expiredAt: "2025-03-02T00:00:00.000Z" },
    });
    expect((await store.get())?.token).toBe(api.issued[1]);
  });

  it("retries the token request while the API is unavailable", async () => {
    api.script("GET", PARTNER_TOKEN_PATH, { status: 503, body: {} });
    const outcome = await clientWith().token();
    expect(outcome.kind).toBe("success");
    expect(api.tokenRequests()).toHaveLength(2);
  });

  it("returns a refused token request as invalid", async () => {
    const outcome = await clientWith({ partnerApiKey: "wrong-key" }).listWebhooks();
    expect(outcome).toEqual({ kind: "invalid", code: "AUTH_3000", message: "no" });
    expect(api.apiRequests()).toHaveLength(0);
  });

  it("fails clearly when a token is needed and no partnerApiKey is configured", async () => {
    await expect(clientWith({ partnerApiKey: undefined }).listWebhooks()).rejects.toThrow(/partnerApiKey/);
    expect(api.requests).toHaveLength(0);
  });

  it("uses a stored token without a partnerApiKey (readers of a shared store)", async () => {
    const seeded = createInMemoryPartnerTokenStore();
    await clientWith({}, seeded).token();
    const reader = clientWith({ partnerApiKey: undefined }, seeded);
    expect((await reader.listWebhooks()).kind).toBe("success");
    expect(api.tokenRequests()).toHaveLength(1);
  });
});

describe("AUTH_3001", () => {
  it("forces exactly one refresh and retries once", async () => {
    const client = clientWith();
    await client.token();
    api.revoked.add(api.issued[0] ?? "");

    const outcome = await client.listWebhooks();
    expect(outcome.kind).toBe("success");
    expect(api.tokenRequests()).toHaveLength(2);
    expect(api.apiRequests().map((request) => request.headers.authorization)).toEqual([
      `Bearer ${api.issued[0]}`,
      `Bearer ${api.issued[1]}`,
    ]);
  });

  it("retries a mutation once with the new token (the refused call had no effect)", async () => {
    const client = clientWith();
    await client.token();
    api.revoked.add(api.issued[0] ?? "");

    const outcome = await client.createWebhook(undefined, {
      endpointUrl: "https://merchant.example/partner",
      eventTypes: [PAYMENT_COMPLETED_EVENT],
    });
    expect(outcome).toMatchObject({ kind: "success", value: { id: "wh_1" } });
    expect(api.apiRequests()).toHaveLength(2);
  });

  it("gives up after a second AUTH_3001 with an invalid outcome", async () => {
    api.revokeEveryToken = true;
    const outcome = await clientWith().listWebhooks();

    expect(outcome).toEqual({ kind: "invalid", code: "AUTH_3001", message: "The token is invalid." });
    expect(api.tokenRequests()).toHaveLength(2);
    expect(api.apiRequests()).toHaveLength(2);
  });

  it("concurrent callers rejected with the same token share one refresh", async () => {
    const client = clientWith();
    await client.token();
    api.revoked.add(api.issued[0] ?? "");

    const outcomes = await Promise.all([1, 2, 3].map(() => client.listWebhooks()));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["success", "success", "success"]);
    expect(api.tokenRequests()).toHaveLength(2);
  });
});

describe("webhook subscriptions", () => {
  const created = { endpointUrl: "https://merchant.example/partner", eventTypes: [PAYMENT_COMPLETED_EVENT] };

  it("creates a subscription under the configured partner merchant id", async () => {
    const outcome = await clientWith({ partnerMerchantId: "PARTNER-7" }).createWebhook(undefined, created);

    expect(outcome).toEqual({
      kind: "success",
      value: { id: "wh_1", ...created, isActive: true, createdAt: "2025-01-01T00:00:00.000Z" },
    });
    const [request] = api.apiRequests();
    expect(request).toMatchObject({ method: "POST", path: `${WEBHOOKS}/PARTNER-7/webhooks`, body: created });
    expect(request?.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("lists subscriptions under the mid by default", async () => {
    const client = clientWith();
    await client.createWebhook(undefined, created);
    await client.createWebhook(undefined, { ...created, eventTypes: ["PAYMENT_COMPLETED", "OTHER"] });
    const outcome = await client.listWebhooks();

    expect(
      outcome.kind === "success" ? outcome.value.map((subscription) => subscription.id) : outcome,
    ).toEqual(["wh_1", "wh_2"]);
    expect(api.apiRequests().at(-1)).toMatchObject({ method: "GET", path: `${WEBHOOKS}/TESTMID01/webhooks` });
  });

  it("URL-encodes path parameters", async () => {
    await clientWith().listWebhooks("m/1 x?");
    expect(api.apiRequests()[0]?.path).toBe(`${WEBHOOKS}/m%2F1%20x%3F/webhooks`);
  });

  it("updates a subscription, sending isActive as a boolean", async () => {
    const client = clientWith();
    await client.createWebhook("M1", created);
    const outcome = await client.updateWebhook("M1", "wh_1", { ...created, isActive: false });

    expect(outcome).toMatchObject({ kind: "success", value: { id: "wh_1", isActive: false } });
    expect(api.apiRequests().at(-1)).toMatchObject({
      method: "PUT",
      path: `${WEBHOOKS}/M1/webhooks/wh_1`,
      body: { ...created, isActive: false },
    });
  });

  it("deletes a subscription; the envelope carries no data", async () => {
    const client = clientWith();
    await client.createWebhook("M1", created);
    const outcome = await client.deleteWebhook("M1", "wh_1");

    expect(outcome).toEqual({ kind: "success", value: { code: "CMN_0000", message: "Success" } });
    expect(api.apiRequests().at(-1)).toMatchObject({
      method: "DELETE",
      path: `${WEBHOOKS}/M1/webhooks/wh_1`,
    });
  });

  it("returns any other code as invalid", async () => {
    const outcome = await clientWith().deleteWebhook("M1", "missing");
    expect(outcome).toEqual({ kind: "invalid", code: "CMN_4040", message: "not found" });
  });

  it("never retries a mutation: a 503 after sending leaves its outcome unknown", async () => {
    api.script("POST", `${WEBHOOKS}/M1/webhooks`, { status: 503, body: {} });
    const outcome = await clientWith().createWebhook("M1", created);
    expect(outcome).toMatchObject({ kind: "unknown" });
    expect(api.apiRequests()).toHaveLength(1);
  });

  it("retries a read on unavailable", async () => {
    api.script("GET", `${WEBHOOKS}/M1/webhooks`, { status: 503, body: {} });
    expect((await clientWith().listWebhooks("M1")).kind).toBe("success");
    expect(api.apiRequests()).toHaveLength(2);
  });

  it("reports an unreadable success of a mutation as unknown", async () => {
    api.script("POST", `${WEBHOOKS}/M1/webhooks`, { status: 200, body: ok({ id: "wh_9" }).body });
    expect((await clientWith().createWebhook("M1", created)).kind).toBe("unknown");
  });
});

describe("request validation (nothing is sent)", () => {
  const body = { endpointUrl: "https://merchant.example/partner", eventTypes: [PAYMENT_COMPLETED_EVENT] };

  async function rejects(call: (client: PartnerClient) => Promise<unknown>, field: string): Promise<void> {
    const error = await call(clientWith()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayRequestError);
    expect(error).toMatchObject({ field });
    expect(api.requests).toHaveLength(0);
  }

  it.each([
    ["endpointUrl", { ...body, endpointUrl: "ftp://merchant.example/partner" }],
    ["endpointUrl", { ...body, endpointUrl: "not a url" }],
    ["eventTypes", { ...body, eventTypes: [] }],
    ["eventTypes.0", { ...body, eventTypes: [""] }],
  ])("createWebhook rejects a bad %s", async (field, invalid) => {
    await rejects((client) => client.createWebhook("M1", invalid), field);
  });

  it("createWebhook rejects an empty merchantId", async () => {
    await rejects((client) => client.createWebhook("", body), "merchantId");
  });

  it("listWebhooks rejects an empty or dot-segment merchantId", async () => {
    await rejects((client) => client.listWebhooks(""), "merchantId");
    await rejects((client) => client.listWebhooks(".."), "merchantId");
  });

  it("updateWebhook rejects a bad isActive, endpointUrl and publicId", async () => {
    // @ts-expect-error isActive must be a boolean on the wire
    await rejects((client) => client.updateWebhook("M1", "wh_1", { ...body, isActive: "false" }), "isActive");
    await rejects(
      (client) => client.updateWebhook("M1", "wh_1", { ...body, endpointUrl: "" }),
      "endpointUrl",
    );
    await rejects((client) => client.updateWebhook("M1", "", body), "publicId");
  });

  it("deleteWebhook rejects an empty or dot-segment publicId and an empty merchantId", async () => {
    await rejects((client) => client.deleteWebhook("M1", ""), "publicId");
    await rejects((client) => client.deleteWebhook("M1", "."), "publicId");
    await rejects((client) => client.deleteWebhook("", "wh_1"), "merchantId");
  });

  it("never puts the rejected value in the message", async () => {
    const error = await clientWith()
      .createWebhook("M1", { ...body, endpointUrl: "ftp://secret-value.example" })
      .catch((caught: unknown) => caught);
    expect(String(error)).not.toContain("secret-value");
  });
});

describe("partner response schemas", () => {
  it("reads an expiredAt without offset as UTC and normalises it", () => {
    expect(partnerToken.parse({ token: "a.b.c", expiredAt: "2025-03-02T09:00:00" }).expiredAt).toBe(
      "2025-03-02T09:00:00.000Z",
    );
    expect(partnerToken.parse({ token: "a.b.c", expiredAt: "2025-03-02T09:00:00+09:00" }).expiredAt).toBe(
      "2025-03-02T00:00:00.000Z",
    );
    expect(partnerToken.safeParse({ token: "opaque", expiredAt: "2025-03-02T09:00:00Z" }).success).toBe(
      false,
    );
  });

  it("reads a missing or null subscription list as empty", () => {
    expect(webhookListResponse.parse({ code: "CMN_0000", data: null }).data).toEqual([]);
    expect(webhookListResponse.parse({ code: "CMN_0000" }).data).toEqual([]);
  });

  it("parses the PAYMENT_COMPLETED payload", () => {
    const event = partnerWebhookEvent.parse({
      id: "evt_1",
      eventType: "PAYMENT_COMPLETED",
      timestamp: "2025-03-01T10:00:00Z",
      data: {
        invoice: { invoiceId: "inv_1", invoiceNumber: "2025-0001", status: "COMPLETED" },
        payment: {
          transactionId: "T".repeat(24),
          amount: "10.00",
          currency: "USD",
          rescode: "0000",
          resmsg: "OK",
        },
      },
    });
    expect(event.data.invoice?.status).toBe("COMPLETED");
    expect(partnerWebhookEvent.safeParse({ eventType: "PAYMENT_COMPLETED", data: {} }).success).toBe(false);
  });
});
