import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument } from "../../../functions/api/openapi";
import { run as getOpenApi } from "../../../functions/handlers/get-openapi";
import { answerOf, apiEvent } from "../../support/merchant-api";

// The merchant API's OpenAPI documents pass Redocly's recommended rules with no error and no warning (README, Merchant
// API): the deployed API's as scripts/write-openapi.ts writes it and as get-openapi serves it, and local mode's (its
// own routes too). Redocly's CLI runs from node_modules, offline (no telemetry, no update check); its rules include
// no-invalid-media-type-examples and no-invalid-parameter-examples, so every example is checked against its schema.

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../../..");
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

const lintReport = z.object({
  totals: z.object({ errors: z.number(), warnings: z.number() }),
  problems: z.array(z.looseObject({ ruleId: z.string(), message: z.string() })),
});

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "openapi-lint-"));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `redocly lint --format=json` of one file, with the recommended rules whatever configuration lies around. */
async function lint(file: string) {
  const { stdout } = await run(bin("redocly"), ["lint", file, "--extends=recommended", "--format=json"], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  return lintReport.parse(JSON.parse(stdout));
}

const clean = { totals: { errors: 0, warnings: 0 }, problems: [] };

async function written(args: readonly string[]): Promise<string> {
  await run(bin("tsx"), [join(ROOT, "scripts/write-openapi.ts"), ...args], { cwd: dir });
  return join(dir, args[0] ?? "openapi.json");
}

describe("the OpenAPI documents under Redocly's recommended rules", () => {
  it("the deployed API's, as scripts/write-openapi.ts writes it: no local-only route", async () => {
    const file = await written(["openapi.json"]);
    expect(await lint(file)).toMatchObject(clean);
    const document = JSON.parse(await readFile(file, "utf8"));
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(Object.keys(document.paths)).not.toContain("/local/clock");
  }, 60_000);

  it("local mode's, written with --local: its own routes too", async () => {
    const file = await written(["openapi-local.json", "--local"]);
    expect(await lint(file)).toMatchObject(clean);
    const document = JSON.parse(await readFile(file, "utf8"));
    expect(Object.keys(document.paths)).toContain("/local/clock");
  }, 60_000);

  it("as get-openapi serves it, and as local mode serves its own", async () => {
    const served = answerOf(await getOpenApi(apiEvent("GET", "/openapi.json")));
    expect(served.status).toBe(200);
    const deployed = join(dir, "served.json");
    await writeFile(deployed, JSON.stringify(served.json));
    expect(await lint(deployed)).toMatchObject(clean);

    const local = join(dir, "served-local.json");
    await writeFile(
      local,
      JSON.stringify(buildOpenApiDocument({ local: true, serverUrl: "http://127.0.0.1:3000" })),
    );
    expect(await lint(local)).toMatchObject(clean);
  }, 60_000);

  it("would report a broken example (the rules do check them)", async () => {
    // A copy: the examples' objects are shared between operations.
    const document: ReturnType<typeof buildOpenApiDocument> = JSON.parse(
      JSON.stringify(buildOpenApiDocument()),
    );
    const created = document.paths["/v1/subscriptions"]?.post as {
      responses: Record<string, { content: Record<string, { example: Record<string, unknown> }> }>;
    };
    const example = created.responses["201"]?.content["application/json"]?.example;
    if (example === undefined) throw new Error("POST /v1/subscriptions has no 201 example");
    example.status = "almost_active";
    const file = join(dir, "broken.json");
    await writeFile(file, JSON.stringify(document));
    const report = await lint(file);
    expect(report.totals).toEqual({ errors: 0, warnings: 1 });
    expect(report.problems[0]?.ruleId).toBe("no-invalid-media-type-examples");
  }, 60_000);
});
