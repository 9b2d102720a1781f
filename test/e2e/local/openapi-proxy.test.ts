import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../../functions/api/openapi";
import { LocalStack } from "../../../local/stack/local-stack";
import { merchantLifecycle } from "../../support/merchant-lifecycle";

// Every answer held to the OpenAPI document by a tool we did not write: Stoplight Prism as a validating proxy in
// front of local mode. Prism checks each request and each response against local mode's document and names what
// breaks it in an `sl-violations` header; the whole lifecycle of the client package runs through it.

/** One request through the proxy and what Prism found wrong with it. */
interface Seen {
  readonly label: string;
  readonly status: number;
  readonly violations: readonly { location: string[]; severity: string; message: string }[];
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? done(address.port) : fail(new Error("no port")),
      );
    });
  });

/** Starts `prism proxy` on the document, in front of `upstream`; resolves once it listens. */
async function startPrism(document: string, upstream: string, port: number): Promise<ChildProcess> {
  const cli = createRequire(import.meta.url).resolve("@stoplight/prism-cli/dist/index.js");
  const prism = spawn(
    process.execPath,
    [cli, "proxy", document, upstream, "--port", String(port), "--cors", "false"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`prism did not start:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("Prism is listening")) {
        clearTimeout(timer);
        ready();
      }
    };
    prism.stdout?.on("data", read);
    prism.stderr?.on("data", read);
    prism.once("exit", (code) => fail(new Error(`prism exited (${code}):\n${output}`)));
  });
  return prism;
}

describe("the merchant API behind a validating proxy of its OpenAPI document (Stoplight Prism)", () => {
  let local: LocalStack;
  let prism: ChildProcess | undefined;
  let proxyUrl: string;
  const documentFile = resolve("test-output", `openapi-proxy-${process.pid}.json`);

  beforeAll(async () => {
    local = await LocalStack.start({
      port: 0,
      sandboxPort: 0,
      realTime: false,
      start: new Date("2027-04-01T09:00:00.000Z"),
    });
    await mkdir(dirname(documentFile), { recursive: true });
    await writeFile(
      documentFile,
      JSON.stringify(buildOpenApiDocument({ local: true, serverUrl: local.url })),
    );
    const port = await freePort();
    prism = await startPrism(documentFile, local.url, port);
    proxyUrl = `http://127.0.0.1:${port}`;
  }, 90_000);

  afterAll(async () => {
    prism?.kill();
    await local?.close();
    await rm(documentFile, { force: true });
  });

  it("finds every answer of a SaaS's whole lifecycle, refusals included, as the document says", async () => {
    const seen: Seen[] = [];
    const recording = async (request: Request) => {
      const label = `${request.method} ${new URL(request.url).pathname}`;
      const response = await fetch(request);
      const header = response.headers.get("sl-violations");
      seen.push({ label, status: response.status, violations: header ? JSON.parse(header) : [] });
      return response;
    };
    const { subscriptionId } = await merchantLifecycle({
      baseUrl: proxyUrl,
      apiKey: local.apiKey,
      sandboxUrl: local.sandboxUrl,
      run: "proxied",
      fetch: recording,
    });
    // What the typed client cannot send: another method, another media type, a bodiless write, and no route at all.
    const raw = (method: string, path: string, init: { body?: string; type?: string } = {}) =>
      recording(
        new Request(`${proxyUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${local.apiKey}`,
            ...(init.type === undefined ? {} : { "content-type": init.type }),
          },
          ...(init.body === undefined ? {} : { body: init.body }),
        }),
      );
    const put = await raw("PUT", "/v1/subscriptions", { body: "{}", type: "application/json" });
    expect([put.status, put.headers.get("allow")]).toEqual([405, "POST, GET"]);
    const text = await raw("POST", "/v1/subscriptions", { body: '{"customer":{}}', type: "text/plain" });
    expect(text.status).toBe(415);
    const resumes = [
      await raw("POST", `/v1/subscriptions/${subscriptionId}/resume`),
      await raw("POST", `/v1/subscriptions/${subscriptionId}/resume`, {
        body: "{}",
        type: "application/json",
      }),
    ];
    expect(resumes.map((answer) => answer.status)).toEqual([409, 409]);
    expect((await raw("GET", "/v1/nowhere")).status).toBe(404);

    const responseViolations = seen.flatMap(({ label, status, violations }) =>
      violations
        .filter((violation) => violation.location[0] === "response")
        .map((violation) => `${label} ${status}: ${violation.location.join(".")} ${violation.message}`),
    );
    expect(responseViolations).toEqual([]);
    // The requests broke the document only where they were made to: a malformed expiry, a method or a route the
    // document does not have, a text/plain body (which Prism refuses with the same 415).
    const requestViolations = seen.flatMap(({ label, status, violations }) =>
      violations
        .filter((violation) => violation.location[0] === "request")
        .map((violation) => `${label} ${status}: ${violation.message}`),
    );
    expect(requestViolations).toEqual([
      expect.stringMatching(
        /^POST \/v1\/subscriptions 400: Request body property card\.expiry must match pattern/,
      ),
      "PUT /v1/subscriptions 405: Selected route not found",
      "POST /v1/subscriptions 415: Supported content types: application/json",
      "GET /v1/nowhere 404: Selected route not found",
    ]);
    expect(seen.length).toBeGreaterThan(25);
  }, 180_000);
});
