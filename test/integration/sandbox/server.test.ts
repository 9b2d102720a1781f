import { execFile } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { basicAuthorization } from "../../../functions/gateway/context";
import { sendJson } from "../../../functions/gateway/transport";
import { positiveAmount } from "../../../sandbox/api/request-fields";
import { okReply, parseFields, partnerOkReply } from "../../../sandbox/http/replies";
import { defineRoute, type RouteDefinition } from "../../../sandbox/http/routes";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../../sandbox/server";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";

const OTHER_MERCHANT = {
  mid: "SBXTEST002",
  apiKey: "sandbox_api_key_second",
  aesKeyHex: "ab".repeat(32),
  webhookSecret: "sandbox_webhook_secret_second",
  partnerApiKey: "sandbox_partner_api_key_second",
};
const AUTH = basicAuthorization(TEST_MERCHANT.apiKey);
const CLOSE_HELD = fileURLToPath(new URL("./fixtures/close-held.ts", import.meta.url));

/** Test-only routes, registered through the public route API; `commits` counts handler runs. */
function testRoutes() {
  const commits = { count: 0 };
  const routes: RouteDefinition[] = [
    defineRoute({
      name: "test.echo",
      method: "POST",
      path: "/v1/test/echo/:id",
      auth: "basic",
      handler: (request, { merchant }) =>
        okReply({ mid: merchant.mid, id: request.params.id, body: request.body }),
    }),
    defineRoute({
      name: "test.commit",
      method: "POST",
      path: "/v1/test/commit",
      auth: "basic",
      handler: (_request, { merchant, ledger }) => {
        commits.count++;
        ledger.webhooks.register(merchant.mid, "http://127.0.0.1:9/commit", `COMMIT_${commits.count}`);
        return okReply({ commit: String(commits.count) });
      },
    }),
    defineRoute({
      name: "test.throw",
      method: "POST",
      path: "/v1/test/throw",
      auth: "basic",
      handler: () => {
        throw new Error("kaboom with a secret-looking value");
      },
    }),
    defineRoute({
      name: "test.validate",
      method: "POST",
      path: "/v1/test/validate",
      auth: "basic",
      handler: (request) => {
        parseFields(z.strictObject({ payment: z.strictObject({ amount: positiveAmount }) }), request.body);
        return okReply();
      },
    }),
    defineRoute({
      name: "test.optional-body",
      method: "POST",
      path: "/v1/test/optional",
      auth: "basic",
      body: "optional",
      handler: (request) => okReply({ keys: Object.keys(request.body) }),
    }),
    defineRoute({
      name: "test.partner-token",
      method: "GET",
      path: "/api/v1/partner/test/token",
      auth: "partner-api-key",
      handler: (_request, { merchant, ledger, clock }) => {
        const issued = ledger.partner.issueToken(merchant.mid, clock.now());
        return partnerOkReply({ token: issued.token, expiredAt: issued.expiresAt.toISOString() });
      },
    }),
    defineRoute({
      name: "test.partner",
      method: "GET",
      path: "/api/v1/partner/test/merchants/:merchantId",
      auth: "partner-bearer",
      handler: (request, { merchant }) =>
        partnerOkReply({ mid: merchant.mid, merchantId: request.params.merchantId }),
    }),
  ];
  return { commits, routes };
}

interface CallOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

async function call(sandbox: Sandbox, path: string, options: CallOptions = {}) {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(`${sandbox.url}${path}`, {
    method: options.method ?? "POST",
    headers: { authorization: AUTH, "content-type": "application/json", ...options.headers },
    body,
    signal: options.signal,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) as unknown };
}

async function startWithTestRoutes(options: SandboxOptions = {}) {
  const { commits, routes } = testRoutes();
  const sandbox = await startSandbox({ merchants: [TEST_MERCHANT, OTHER_MERCHANT], routes, ...options });
  return { sandbox, commits };
}

describe("sandbox server", () => {
  let sandbox: Sandbox;
  let commits: { count: number };

  beforeAll(async () => {
    ({ sandbox, commits } = await startWithTestRoutes({ start: new Date("2026-05-01T00:00:00Z") }));
  });
  afterAll(() => sandbox.close());
  afterEach(() => {
    sandbox.faults.configure({});
  });

  describe("success and merchants", () => {
    it("answers the success envelope with the authenticated merchant and path parameters", async () => {
      const reply = await call(sandbox, "/v1/test/echo/abc%20d", { body: { a: "1" } });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(reply.json).toEqual({
        rescode: "0000",
        resmsg: "Success.",
        mid: TEST_MERCHANT.mid,
        id: "abc d",
        body: { a: "1" },
      });
    });

    it("tells merchants apart by API key", async () => {
      const reply = await call(sandbox, "/v1/test/echo/x", {
        body: {},
        headers: { authorization: basicAuthorization(OTHER_MERCHANT.apiKey) },
      });
      expect(reply.json).toMatchObject({ mid: OTHER_MERCHANT.mid });
    });

    it("reads an empty body as {} on an optional-body route", async () => {
      expect((await call(sandbox, "/v1/test/optional")).json).toMatchObject({ rescode: "0000", keys: [] });
    });
  });

  describe("vendor errors", () => {
    it.each([
      ["missing", undefined],
      ["wrong key", basicAuthorization("sandbox_api_key_unknown")],
      ["password given", `Basic ${Buffer.from(`${TEST_MERCHANT.apiKey}:x`).toString("base64")}`],
      ["no colon", `Basic ${Buffer.from(TEST_MERCHANT.apiKey).toString("base64")}`],
      ["not base64", "Basic !!!"],
      ["other scheme", `Bearer ${TEST_MERCHANT.apiKey}`],
    ])("EC1000 for an Authorization header %s, with nothing committed", async (_case, authorization) => {
      const [before, revision] = [commits.count, sandbox.state.revision];
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const response = await fetch(`${sandbox.url}/v1/test/commit`, { method: "POST", headers, body: "{}" });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        rescode: "EC1000",
        resmsg: "Authorization is missing or invalid",
      });
      expect([commits.count, sandbox.state.revision]).toEqual([before, revision]);
    });

    it.each([
      ["not JSON", "{nope"],
      ["a JSON array", "[]"],
      ["a JSON string", '"text"'],
      ["JSON null", "null"],
      ["empty", ""],
    ])("EC1001 for a body that is %s", async (_case, raw) => {
      const before = commits.count;
      const reply = await call(sandbox, "/v1/test/commit", { raw });
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ rescode: "EC1001" });
      expect(commits.count).toBe(before);
    });

    it("EC1001 (413) for an over-size body, and the server goes on", async () => {
      const reply = await call(sandbox, "/v1/test/echo/x", { raw: `{"a":"${"x".repeat(1024 * 1024)}"}` });
      expect(reply.status).toBe(413);
      expect(reply.json).toMatchObject({ rescode: "EC1001" });
      expect((await call(sandbox, "/v1/test/echo/x", { body: {} })).status).toBe(200);
    });

    it("EC1003 for a wrong HTTP method on a known path", async () => {
      const reply = await call(sandbox, "/v1/test/commit", { method: "GET" });
      expect(reply.status).toBe(405);
      expect(reply.headers.get("allow")).toBe("POST");
      expect(reply.json).toEqual({ rescode: "EC1003", resmsg: "HTTP method not allowed" });
    });

    it("404 with a JSON error for an unknown path, in the dialect of its API", async () => {
      const payment = await call(sandbox, "/v1/payments/nothing-here");
      expect(payment.status).toBe(404);
      expect(payment.json).toMatchObject({ rescode: expect.any(String), resmsg: "Unknown path" });
      const partner = await call(sandbox, "/api/v1/partner/nothing", { method: "GET" });
      expect(partner.status).toBe(404);
      expect(partner.json).toMatchObject({ code: expect.any(String), data: null });
    });

    it("EC00 naming the field (never the value) for an invalid parameter", async () => {
      const reply = await call(sandbox, "/v1/test/validate", { body: { payment: { amount: "1,000.50" } } });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ rescode: "EC00", resmsg: "Invalid parameter: payment.amount" });
      const unknownKey = await call(sandbox, "/sandbox/faults", {
        method: "PUT",
        body: { global: { errorRat: 1 } },
      });
      expect(unknownKey.json).toEqual({ rescode: "EC00", resmsg: "Invalid parameter: global.errorRat" });
    });

    it("EX99 as JSON for a handler exception, without its message, and the server stays up", async () => {
      const reply = await call(sandbox, "/v1/test/throw", { body: {} });
      expect(reply.status).toBe(500);
      expect(reply.json).toEqual({ rescode: "EX99", resmsg: "Internal error" });
      expect(JSON.stringify(reply.json)).not.toContain("secret");
      expect((await call(sandbox, "/v1/test/echo/x", { body: {} })).status).toBe(200);
    });

    it("survives garbage on the wire and odd requests", async () => {
      const garbage = await new Promise<string>((resolve) => {
        const socket = connect(sandbox.port, "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
        let received = "";
        socket.on("data", (chunk) => {
          received += chunk.toString();
        });
        socket.on("close", () => resolve(received));
        socket.on("error", () => resolve(received));
      });
      expect(garbage).toMatch(/^HTTP\/1\.1 400/);
      for (const [method, path] of [
        ["OPTIONS", "/v1/test/commit"],
        ["PATCH", "/sandbox/clock"],
        ["POST", "/%"],
        ["POST", "//x//y"],
        ["DELETE", "/"],
      ] as const) {
        const response = await fetch(`${sandbox.url}${path}`, {
          method,
          headers: { authorization: AUTH },
          body: "x",
        });
        expect([404, 405]).toContain(response.status);
        expect(await response.json()).toHaveProperty("rescode");
      }
      expect((await call(sandbox, "/sandbox/clock", { method: "GET" })).status).toBe(200);
    });
  });

  describe("partner authentication", () => {
    it("issues a token for the partner API key and accepts it as a bearer", async () => {
      const refused = await call(sandbox, "/api/v1/partner/test/token", {
        method: "GET",
        headers: { apiKey: "wrong" },
      });
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ code: expect.stringMatching(/^AUTH_/), data: null });
      const issued = await call(sandbox, "/api/v1/partner/test/token", {
        method: "GET",
        headers: { apiKey: TEST_MERCHANT.partnerApiKey },
      });
      const { token } = z.object({ data: z.object({ token: z.string() }) }).parse(issued.json).data;
      const reply = await call(sandbox, `/api/v1/partner/test/merchants/${TEST_MERCHANT.mid}`, {
        method: "GET",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(reply.json).toEqual({
        code: "CMN_0000",
        message: "Success",
        data: { mid: TEST_MERCHANT.mid, merchantId: TEST_MERCHANT.mid },
      });
    });

    it("answers AUTH_3001 in the partner envelope for a missing, unknown or expired token", async () => {
      const path = `/api/v1/partner/test/merchants/${TEST_MERCHANT.mid}`;
      const token = sandbox.state.partner.issueToken(TEST_MERCHANT.mid, sandbox.clock.now()).token;
      for (const authorization of [undefined, "Bearer not-a-token", AUTH]) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const response = await fetch(`${sandbox.url}${path}`, { headers });
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ code: "AUTH_3001", data: null });
      }
      await sandbox.clock.advance("PT24H");
      const expired = await call(sandbox, path, {
        method: "GET",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(expired.json).toMatchObject({ code: "AUTH_3001" });
    });
  });

  describe("fault injection", () => {
    it("503 before handling: nothing committed, counted", async () => {
      sandbox.faults.configure({ routes: { "test.commit": { errorRate: 1 } } });
      sandbox.faults.resetCounters();
      const [before, revision] = [commits.count, sandbox.state.revision];
      const reply = await call(sandbox, "/v1/test/commit", { body: {} });
      expect(reply.status).toBe(503);
      expect(reply.json).toMatchObject({ rescode: expect.any(String) });
      expect([commits.count, sandbox.state.revision]).toEqual([before, revision]);
      expect((await call(sandbox, "/v1/test/echo/x", { body: {} })).status).toBe(200); // override is per route
      expect(sandbox.faults.counters().byRoute["test.commit"]).toMatchObject({ requests: 1, error: 1 });
    });

    it("reset destroys the connection before handling: nothing committed", async () => {
      sandbox.faults.configure({ resetRate: 1 });
      const before = commits.count;
      await expect(call(sandbox, "/v1/test/commit", { body: {} })).rejects.toThrow();
      expect(commits.count).toBe(before);
      expect(sandbox.faults.counters().total.reset).toBeGreaterThan(0);
    });

    it("timeout after commit: the handler commits, the response never comes", async () => {
      sandbox.faults.configure({ routes: { "test.commit": { timeoutAfterCommitRate: 1 } } });
      const [before, revision] = [commits.count, sandbox.state.revision];
      await expect(
        call(sandbox, "/v1/test/commit", { body: {}, signal: AbortSignal.timeout(300) }),
      ).rejects.toThrow(/aborted|timeout/i);
      expect(commits.count).toBe(before + 1);
      expect(sandbox.state.revision).toBe(revision + 1);
    });

    it("adds latency before handling", async () => {
      sandbox.faults.configure({ latencyMs: 150 });
      const started = performance.now();
      expect((await call(sandbox, "/v1/test/echo/x", { body: {} })).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    });

    it("is set at run time through PUT /sandbox/faults, which faults never touch", async () => {
      const put = await call(sandbox, "/sandbox/faults", {
        method: "PUT",
        body: { global: { errorRate: 1 }, routes: { "test.echo": { errorRate: 0 } } },
      });
      expect(put.json).toMatchObject({
        rescode: "0000",
        global: { errorRate: 1 },
        routes: { "test.echo": { errorRate: 0 } },
      });
      expect((await call(sandbox, "/v1/test/commit", { body: {} })).status).toBe(503);
      expect((await call(sandbox, "/v1/test/echo/x", { body: {} })).status).toBe(200);
      const got = await call(sandbox, "/sandbox/faults", { method: "GET" });
      expect(got.json).toMatchObject({ seed: 1, counters: { total: expect.any(Object) } });
      const bad = await call(sandbox, "/sandbox/faults", {
        method: "PUT",
        body: { routes: { x: { errorRate: 7 } } },
      });
      expect(bad.json).toEqual({ rescode: "EC00", resmsg: "Invalid parameter: routes.x.errorRate" });
    });

    it("classifies as the gateway client expects: a mutation met by a 503, a 500 after commit, a withheld answer or a reset is unknown", async () => {
      const request = (timeoutMs: number) =>
        sendJson({
          method: "POST",
          url: `${sandbox.url}/v1/test/commit`,
          headers: { authorization: AUTH },
          body: {},
          kind: "mutation",
          timeoutMs,
        });
      sandbox.faults.configure({ errorRate: 1 });
      expect(await request(2000)).toMatchObject({ ok: false, failure: { kind: "unknown" } });
      const before = commits.count;
      sandbox.faults.configure({ errorAfterCommitRate: 1 });
      expect(await request(2000)).toMatchObject({
        ok: false,
        failure: { kind: "unknown", reason: "HTTP 500 after sending" },
      });
      expect(commits.count).toBe(before + 1);
      sandbox.faults.configure({ throttleRate: 1 });
      expect(await request(2000)).toMatchObject({ ok: false, failure: { kind: "unavailable", status: 429 } });
      expect(commits.count).toBe(before + 1);
      sandbox.faults.configure({ timeoutAfterCommitRate: 1 });
      expect(await request(200)).toMatchObject({ ok: false, failure: { kind: "unknown" } });
      sandbox.faults.configure({ resetRate: 1 });
      expect(await request(2000)).toMatchObject({ ok: false, failure: { kind: "unknown" } });
    });
  });

  describe("sandbox routes", () => {
    it("moves the clock by an ISO duration or to a date", async () => {
      const now = sandbox.clock.now();
      const advanced = await call(sandbox, "/sandbox/clock", { body: { advance: "P31D" } });
      expect(advanced.json).toEqual({
        rescode: "0000",
        resmsg: "Success.",
        now: new Date(now.getTime() + 31 * 86_400_000).toISOString(),
      });
      const set = await call(sandbox, "/sandbox/clock", { body: { set: "2027-01-01T00:00:00+09:00" } });
      expect(set.json).toMatchObject({ now: "2026-12-31T15:00:00.000Z" });
      for (const body of [{ advance: "31 days" }, { advance: "P1D", set: "2027-01-01T00:00:00Z" }, {}]) {
        expect((await call(sandbox, "/sandbox/clock", { body })).json).toMatchObject({ rescode: "EC00" });
      }
    });

    it("shows ledger counts, and records on request", async () => {
      const summary = await call(sandbox, "/sandbox/ledger", { method: "GET" });
      expect(summary.json).toMatchObject({ revision: sandbox.state.revision, counts: { payments: 0 } });
      const records = await call(sandbox, `/sandbox/ledger?kind=webhooks&mid=${TEST_MERCHANT.mid}&limit=1`, {
        method: "GET",
      });
      expect(records.json).toMatchObject({
        kind: "webhooks",
        total: 1,
        records: [{ mid: TEST_MERCHANT.mid }],
      });
      const bad = await call(sandbox, "/sandbox/ledger?kind=everything", { method: "GET" });
      expect(bad.json).toEqual({ rescode: "EC00", resmsg: "Invalid parameter: kind" });
    });

    it("lists deliveries", async () => {
      expect((await call(sandbox, "/sandbox/deliveries?kind=webhook", { method: "GET" })).json).toMatchObject(
        {
          rescode: "0000",
          deliveries: [],
        },
      );
    });

    it("takes routes added after start", async () => {
      sandbox.addRoute(
        defineRoute({
          name: "test.late",
          method: "GET",
          path: "/v1/test/late",
          auth: "none",
          handler: () => okReply(),
        }),
      );
      expect((await call(sandbox, "/v1/test/late", { method: "GET" })).status).toBe(200);
      expect(() =>
        sandbox.addRoute(
          defineRoute({
            name: "test.late",
            method: "GET",
            path: "/v1/other",
            auth: "none",
            handler: () => okReply(),
          }),
        ),
      ).toThrow(/duplicate/);
    });
  });
});

describe("sandbox determinism and lifecycle", () => {
  it("gives the same fault sequence for the same seed", async () => {
    const statuses = async (seed: number) => {
      const { sandbox } = await startWithTestRoutes({ seed, faults: { errorRate: 0.5 } });
      try {
        const results: number[] = [];
        for (let index = 0; index < 24; index++)
          results.push((await call(sandbox, "/v1/test/echo/x", { body: {} })).status);
        return results;
      } finally {
        await sandbox.close();
      }
    };
    const first = await statuses(11);
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await statuses(11)).toEqual(first);
    expect(await statuses(12)).not.toEqual(first);
  });

  it("close() ends a withheld response, and the process then exits by itself (no open handles)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", CLOSE_HELD], {
      timeout: 15_000,
    });
    expect(JSON.parse(stdout)).toEqual({ committed: true, held: "closed", slow: "closed", pending: 0 });
  });

  it("close() cancels latency in progress and the sandbox's own clock tasks", async () => {
    const { sandbox } = await startWithTestRoutes({ faults: { latencyMs: 60_000 } });
    const pending = call(sandbox, "/v1/test/echo/x", { body: {} });
    pending.catch(() => undefined);
    sandbox.clock.schedule(new Date(0), () => undefined, "foreign");
    sandbox.deliveries.webhook(TEST_MERCHANT, "http://127.0.0.1:9/unreachable", {}).catch(() => undefined);
    await sandbox.deliveries.settled();
    expect(sandbox.clock.pending().map((task) => task.label)).toContain("foreign");
    expect(sandbox.clock.pending().some((task) => task.label.startsWith("webhook re-send"))).toBe(true);
    const started = performance.now();
    await sandbox.close();
    expect(performance.now() - started).toBeLessThan(10_000);
    await expect(pending).rejects.toThrow();
    await sandbox.clock.advance("P1D");
    expect(sandbox.deliveries.entries()).toHaveLength(1); // the re-send was cancelled
  });
});
