import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { CallKind } from "../../../functions/gateway/result";
import { callJsonApi, callRescodeApi, type FetchLike } from "../../../functions/gateway/transport";

/*
 * Outcome classification against a real HTTP server on 127.0.0.1: what the billing engine may conclude when the
 * gateway times out, hangs up, refuses, or answers something unexpected.
 */

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

interface TestServer {
  readonly url: string;
  /** Requests received so far. */
  hits(): number;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("server is not listening on TCP");
  return address.port;
}

async function serve(handler: Handler): Promise<TestServer> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    handler(req, res, hits);
  });
  servers.push(server);
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/v1/payments/payment`, hits: () => hits };
}

/** Reads the request, then answers `status` with `body` (objects as JSON, strings as they are). */
function answer(res: ServerResponse, req: IncomingMessage, status: number, body: unknown): void {
  req.resume();
  req.on("end", () => {
    const json = typeof body !== "string";
    res
      .writeHead(status, { "content-type": json ? "application/json" : "text/html" })
      .end(json ? JSON.stringify(body) : body);
  });
}

const replying =
  (status: number, body: unknown): Handler =>
  (req, res) =>
    answer(res, req, status, body);

const OK_BODY = { rescode: "0000", resmsg: "Success.", transaction_id: "TX0000000000000000000001" };

const responseSchema = z.object({
  rescode: z.string(),
  resmsg: z.string(),
  transaction_id: z.string().length(24),
});

interface CallOptions {
  readonly timeoutMs?: number;
  readonly retries?: number;
  readonly fetchImpl?: FetchLike;
}

function call(url: string, kind: CallKind, { timeoutMs = 2_000, retries = 0, fetchImpl }: CallOptions = {}) {
  return callRescodeApi({
    request: { method: "POST", url, kind, timeoutMs, body: { mid: "1849705C64", order_id: "ORDER-0001" } },
    response: responseSchema,
    retry: { retries, minDelayMs: 1 },
    fetchImpl,
  });
}

describe("timeouts", () => {
  it("(a) no answer before the timeout: a mutation is unknown", async () => {
    const server = await serve(() => {}); // never answers
    expect(await call(server.url, "mutation", { timeoutMs: 150, retries: 2 })).toEqual({
      kind: "unknown",
      reason: expect.stringContaining("timed out"),
    });
    expect(server.hits()).toBe(1);
  });

  it("(a) no answer before the timeout: a read is unavailable after 1 + retries attempts", async () => {
    const server = await serve(() => {});
    expect(await call(server.url, "read", { timeoutMs: 150, retries: 2 })).toEqual({
      kind: "unavailable",
      reason: expect.stringContaining("timed out"),
    });
    expect(server.hits()).toBe(3);
  });

  it("headers sent but the body stalls past the timeout: a mutation is unknown", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"rescode":"0000",');
    });
    expect(await call(server.url, "mutation", { timeoutMs: 150 })).toMatchObject({ kind: "unknown" });
    expect(await call(server.url, "read", { timeoutMs: 150 })).toMatchObject({ kind: "unavailable" });
  });
});

describe("connection lost", () => {
  it("(b) reset in the middle of the response: unknown for a mutation, unavailable for a read", async () => {
    const server = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json", "content-length": "200" });
      res.write('{"rescode":"0000","resmsg":"Suc', () => res.socket?.destroy());
    });
    expect(await call(server.url, "mutation", { retries: 2 })).toEqual({
      kind: "unknown",
      reason: expect.stringContaining("connection lost"),
    });
    expect(server.hits()).toBe(1);
    expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable" });
  });

  it("(c) socket destroyed as soon as the request arrives: unknown for a mutation", async () => {
    const server = await serve((req) => req.socket.destroy());
    expect(await call(server.url, "mutation", { retries: 2 })).toEqual({
      kind: "unknown",
      reason: expect.stringContaining("connection lost"),
    });
    expect(server.hits()).toBe(1);
    expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable" });
  });

  it("(d) connection refused: unavailable for both kinds; only the read is retried", async () => {
    const closed = createServer();
    const port = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/v1/payments/payment`;
    let attempts = 0;
    const countingFetch: FetchLike = (input, init) => {
      attempts += 1;
      return fetch(input, init);
    };

    const mutation = await call(url, "mutation", { retries: 2, fetchImpl: countingFetch });
    expect(mutation).toEqual({ kind: "unavailable", reason: "connection failed (ECONNREFUSED)" });
    expect(attempts).toBe(1);

    attempts = 0;
    const read = await call(url, "read", { retries: 2, fetchImpl: countingFetch });
    expect(read).toEqual({ kind: "unavailable", reason: "connection failed (ECONNREFUSED)" });
    expect(attempts).toBe(3);
  });
});

describe("HTTP status", () => {
  it("(e) 429 is unavailable for both kinds, whatever the body: the request was refused", async () => {
    const server = await serve(replying(429, OK_BODY));
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "unavailable", status: 429 });
    expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable", status: 429 });
  });

  it.each([500, 502, 503, 504])(
    "(e) %i proves nothing about a mutation: unknown (retrieve settles it); a read is unavailable",
    async (status) => {
      const server = await serve(replying(status, status === 503 ? OK_BODY : "<html>Bad Gateway</html>"));
      expect(await call(server.url, "mutation")).toMatchObject({ kind: "unknown" });
      expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable", status });
    },
  );

  it("a 4xx without rescode is invalid (our request was refused)", async () => {
    const server = await serve(replying(400, { error: "bad request" }));
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "invalid", code: "HTTP_400" });
    expect(await call(server.url, "read")).toMatchObject({ kind: "invalid", code: "HTTP_400" });
  });

  it("a 4xx page that is not JSON is invalid too, and a read is not retried on it", async () => {
    const server = await serve(replying(404, "<html>Not Found</html>"));
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "invalid", code: "HTTP_404" });
    expect(await call(server.url, "read", { retries: 2 })).toMatchObject({
      kind: "invalid",
      code: "HTTP_404",
    });
    expect(server.hits()).toBe(2);
  });

  it("a redirect is not followed (it would turn the POST into a GET): invalid, one hit", async () => {
    const target = await serve(replying(200, OK_BODY));
    const server = await serve((req, res) => {
      req.resume();
      res.writeHead(302, { location: target.url }).end();
    });
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "invalid", code: "HTTP_302" });
    expect(target.hits()).toBe(0);
  });
});

describe("unreadable answers", () => {
  it("(f) 200 with a body that is not JSON: unknown for a mutation, unavailable for a read", async () => {
    const server = await serve(replying(200, "<html>maintenance</html>"));
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "unknown" });
    expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable" });
  });

  it("(f) 200 with JSON but no rescode: unknown for a mutation, unavailable for a read", async () => {
    const server = await serve(replying(200, { status: "ok" }));
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "unknown" });
    expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable" });
  });

  it("(g) rescode 0000 with a body that fails the response schema: unknown for a mutation, invalid for a read", async () => {
    const server = await serve(
      replying(200, { rescode: "0000", resmsg: "Success.", transaction_id: "short" }),
    );
    expect(await call(server.url, "mutation")).toMatchObject({ kind: "unknown" });
    expect(await call(server.url, "read", { retries: 2 })).toMatchObject({
      kind: "invalid",
      code: "RESPONSE",
    });
    expect(server.hits()).toBe(2); // an unreadable success is not retried
  });

  it("a readable success is parsed by the response schema", async () => {
    const server = await serve(replying(200, { ...OK_BODY, extra: "ignored" }));
    expect(await call(server.url, "mutation")).toEqual({ kind: "success", value: OK_BODY });
  });
});

describe("(h) rescode classification", () => {
  const reply = (rescode: string) => replying(200, { rescode, resmsg: `message of ${rescode}` });

  it.each(["EC00", "EC1000", "HE01"])("%s is invalid for both kinds", async (rescode) => {
    const server = await serve(reply(rescode));
    for (const kind of ["mutation", "read"] as const) {
      expect(await call(server.url, kind)).toEqual({
        kind: "invalid",
        code: rescode,
        message: `message of ${rescode}`,
      });
    }
  });

  it.each(["EEEE", "EE12", "EX03"])(
    "%s is unknown on a mutation and unavailable on a read",
    async (rescode) => {
      const server = await serve(reply(rescode));
      expect(await call(server.url, "mutation")).toMatchObject({ kind: "unknown" });
      expect(await call(server.url, "read")).toMatchObject({ kind: "unavailable" });
    },
  );

  it.each(["1001", "F101", "ED01", "XX99"])("%s is declined with its code and message", async (rescode) => {
    const server = await serve(reply(rescode));
    for (const kind of ["mutation", "read"] as const) {
      expect(await call(server.url, kind)).toEqual({
        kind: "declined",
        code: rescode,
        message: `message of ${rescode}`,
      });
    }
  });
});

describe("retries", () => {
  it("(i) a read recovers when the gateway comes back: 503, 503, then 0000", async () => {
    const server = await serve((req, res, hit) => answer(res, req, hit <= 2 ? 503 : 200, OK_BODY));
    expect(await call(server.url, "read", { retries: 3 })).toEqual({ kind: "success", value: OK_BODY });
    expect(server.hits()).toBe(3);
  });

  it("a read gives up after 1 + retries attempts and reports the last failure", async () => {
    const server = await serve(replying(503, { rescode: "EX01", resmsg: "busy" }));
    expect(await call(server.url, "read", { retries: 2 })).toMatchObject({
      kind: "unavailable",
      status: 503,
    });
    expect(server.hits()).toBe(3);
  });

  it("a programming error thrown during a read is raised, not retried", async () => {
    const server = await serve(replying(200, OK_BODY));
    const read = callJsonApi(
      {
        request: { method: "POST", url: server.url, kind: "read", timeoutMs: 2_000 },
        retry: { retries: 3, minDelayMs: 1 },
      },
      () => {
        throw new RangeError("bug in the interpreter");
      },
    );
    await expect(read).rejects.toThrow(RangeError);
    expect(server.hits()).toBe(1);
  });

  it("a read is not retried on a definitive answer", async () => {
    const server = await serve(replying(200, { rescode: "1001", resmsg: "declined" }));
    expect(await call(server.url, "read", { retries: 3 })).toMatchObject({ kind: "declined" });
    expect(server.hits()).toBe(1);
  });

  const failures: ReadonlyArray<readonly [string, Handler]> = [
    ["a timeout", () => {}],
    ["a reset", (req) => req.socket.destroy()],
    ["HTTP 500", replying(500, "")],
    ["HTTP 503", replying(503, OK_BODY)],
    ["HTTP 429", replying(429, "")],
    ["HTTP 502", replying(502, "")],
    ["a body that is not JSON", replying(200, "oops")],
    ["rescode EEEE", replying(200, { rescode: "EEEE", resmsg: "duplicate" })],
    ["rescode EE12", replying(200, { rescode: "EE12", resmsg: "acquirer" })],
    ["rescode EX03", replying(200, { rescode: "EX03", resmsg: "internal" })],
    ["an unreadable success", replying(200, { rescode: "0000", resmsg: "Success." })],
  ];

  it.each(failures)("(j) a mutation is never retried, even after %s", async (_name, handler) => {
    const server = await serve(handler);
    const outcome = await call(server.url, "mutation", { timeoutMs: 150, retries: 3 });
    expect(outcome.kind).not.toBe("success");
    expect(server.hits()).toBe(1);
  });
});
