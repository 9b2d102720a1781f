import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";
import { createBillingClient, ok } from "recurring-billing-client";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxEventSchema } from "../../../functions/core/base/events";
import { forwardEvents, verificationSnippet } from "../../../local/stack/forward-events";
import { LocalStack } from "../../../local/stack/local-stack";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

const execFileAsync = promisify(execFile);

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
    const billing = createBillingClient({ baseUrl: local.url, apiKey: local.apiKey });
    const endpoints = await ok(billing.GET("/v1/webhook-endpoints"));
    expect(endpoints.data.filter((endpoint) => endpoint.url === url)).toHaveLength(1);

    const body = {
      customer: { name: "Forwarded", email: "forwarded@example.com" },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
    };
    expect((await billing.POST("/v1/subscriptions", { body })).response.status).toBe(201);
    await local.advanceClock("PT0S");

    // What the printed snippet does: the standardwebhooks library verifies each (on the wall clock, though the
    // stack's stands months ahead).
    const webhook = new Webhook(secret);
    const received = receiver.requests.map((request) =>
      outboxEventSchema.parse(webhook.verify(request.body, request.headers as Record<string, string>)),
    );
    expect(received.map((event) => event.type)).toEqual(
      expect.arrayContaining(["subscription.created", "charge.succeeded", "subscription.activated"]),
    );

    // The snippet `npm start` prints runs as it is, on a forwarded request and on a forged one.
    const [first] = receiver.requests;
    const runSnippet = async (rawBody: string) => {
      const file = resolve("test-output", `forward-snippet-${process.pid}.mjs`);
      await mkdir(dirname(file), { recursive: true });
      const given = `const rawBody = ${JSON.stringify(rawBody)};\nconst headers = ${JSON.stringify(first?.headers)};\n`;
      await writeFile(file, `${given}${verificationSnippet(secret)}\nconsole.log(event.event_id);\n`);
      try {
        return (await execFileAsync(process.execPath, [file])).stdout.trim();
      } catch (error) {
        return String((error as { stderr?: string }).stderr);
      } finally {
        await rm(file, { force: true });
      }
    };
    expect(await runSnippet(first?.body ?? "")).toBe(received[0]?.event_id);
    expect(await runSnippet(`${first?.body} `)).toMatch(/Error: No matching signature found/);
  });
});
