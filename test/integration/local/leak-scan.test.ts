import "../../support/log-everything";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { placedByWrite } from "../../../functions/core/base/events";
import {
  type LeakSecrets,
  leakSecretsOf,
  scanForLeaks,
  stackLeakSources,
} from "../../../local/audit/leak-scan";
import type { LocalStack } from "../../../local/stack/local-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { subscription } from "../../support/billing-repository-contract";
import { captureFileOutput } from "../../support/handler-env";
import { settleWork } from "../../support/stack-state";

/** A whole local run in one case: ~45 s alone, longer on a CI machine whose other worker runs the emulators too. */
const LONG_RUN_MS = 120_000;

// The leak scan over a realistic run of the local stack (every handler logging at DEBUG): sign-ups with approving,
// declining and acquirer-error cards, a window checkout completed in the sandbox, refunds, a bad card refused, a
// month of renewals with the attempt sweep and the partner token refresh. Nothing the system wrote — log lines, metric
// dimensions, table items, queued and dead-lettered messages, events, HTTP answers — may hold a card number, a CVC,
// a credential or a JWT. Then cards and secrets are planted in each place to prove the scan finds them.

const START = new Date("2027-03-01T10:00:00.000Z");
const API_KEY = "mk_leak_9d1f3b5a7c2e4f6a8b0c1d3e5f7a9b2c";
const WRONG_KEY = "mk_leak_0a2c4e6f8b1d3f5a7c9e0b2d4f6a8c1e";
/** Distinct CVCs per sign-up: a CVC is found only as the value of a cvc field, never as a bare number. */
const CVCS = ["731", "4829", "592", "618", "907", "365"];
const CARDS = {
  approve: "4111111111111111",
  approveToo: "5555555555554444",
  declineOnRebill: "4000000000000341",
  insufficientFunds: "4000000000009995",
  expired: "4000000000000069",
  acquirerError: "4000000000000119",
};

let local: LocalStack;
const output = captureFileOutput();
const answers: string[] = [];
let secrets: LeakSecrets;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${local.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, json: JSON.parse(text) as unknown };
}

const customer = { name: "Grace Hopper", email: "grace@example.com" };
const plan = { amount: "30.00", currency: "USD", interval_months: 1 };
const signup = (number: string, cvc: string) => ({ customer, plan, card: { number, expiry: "203012", cvc } });
const idOf = (json: unknown) => z.object({ subscription_id: z.string() }).parse(json).subscription_id;

beforeAll(async () => {
  const { LocalStack } = await import("../../../local/stack/local-stack");
  local = await LocalStack.start({ port: 0, sandboxPort: 0, realTime: false, start: START, apiKey: API_KEY });
  secrets = leakSecretsOf(TEST_MERCHANT, { merchantApiKeys: [API_KEY, WRONG_KEY], cvcs: CVCS });
}, 60_000);

afterAll(async () => {
  await local?.close();
});

describe("leak scan of a realistic local run", () => {
  it(
    "finds no card number, CVC, credential or JWT anywhere the system wrote",
    async () => {
      const signups = await Promise.all(
        Object.values(CARDS).map((number, index) =>
          call("POST", "/v1/subscriptions", signup(number, CVCS[index] ?? "123"), {
            "idempotency-key": `leak-${index}`,
          }),
        ),
      );
      expect(signups.map((answer) => answer.status)).toEqual([201, 201, 201, 422, 422, 202]);
      const [approved = "", approvedToo = ""] = signups.slice(0, 2).map((answer) => idOf(answer.json));

      // Refused before any gateway call: a Luhn-invalid card, card data in an unknown field.
      const badCard = await call("POST", "/v1/subscriptions", signup("4111111111111112", "731"));
      expect(badCard).toMatchObject({ status: 400, json: { error: { field: "card.number" } } });
      const extraField = await call("POST", "/v1/subscriptions", {
        ...signup(CARDS.approve, "731"),
        pan: CARDS.approve,
      });
      expect(extraField.status).toBe(400);

      const wrongKey = await call("GET", `/v1/subscriptions/${approved}`, undefined, {
        authorization: `Bearer ${WRONG_KEY}`,
      });
      expect(wrongKey.status).toBe(401);

      // A window sign-up, completed in the sandbox (status_url → intake → verify → active).
      const checkout = await call("POST", "/v1/checkouts", { customer, plan, billing: "token" });
      expect(checkout.status).toBe(201);
      const { fgkey, subscription_id: windowId } = z
        .object({ fgkey: z.string(), subscription_id: z.string() })
        .parse(checkout.json);
      const completed = await fetch(`${local.sandboxUrl}/sandbox/windows/${fgkey}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card_number: CARDS.approveToo, expiry_date: "203012", cvc: "4829" }),
      });
      expect(completed.status).toBe(200);
      await settleWork(local.stack);
      expect((await call("GET", `/v1/subscriptions/${windowId}`)).json).toMatchObject({ status: "active" });

      // Refunds, partial and full; ad hoc charge; reads.
      expect(
        (await call("POST", `/v1/charges/${approved}-0-0/refunds`, { amount: "5.00", reason: "goodwill" }))
          .status,
      ).toBe(201);
      expect(
        (await call("POST", `/v1/charges/${approvedToo}-0-0/refunds`, { reason: "all of it" })).status,
      ).toBe(201);
      expect((await call("POST", `/v1/subscriptions/${approved}/charges`, { amount: "2.50" })).status).toBe(
        201,
      );
      expect((await call("GET", `/v1/subscriptions/${approved}/charges`)).status).toBe(200);

      // A month on: renewals (one declines on REBILL), the attempt sweep settles the unknown sign-up, the partner token
      // is refreshed on its schedule.
      expect((await call("POST", "/local/clock", { advance: "P31D" })).status).toBe(200);
      expect((await call("GET", `/v1/subscriptions/${approved}`)).json).toMatchObject({
        current_period: { index: 1 },
      });

      const logs = output.text();
      for (const line of [
        "merchant API request refused",
        "partner token checked",
        "intake message processed",
      ]) {
        expect(logs, line).toContain(line);
      }
      const sources = await stackLeakSources(local.stack, { output: logs, httpBodies: answers });
      const places = new Set(sources.map((source) => source.where.replace(/ .*/, "")));
      expect([...places].sort()).toEqual(expect.arrayContaining(["HTTP", "log", "table"]));
      expect(sources.some((source) => source.where.includes("metric dimension"))).toBe(true);
      expect(scanForLeaks(sources, secrets)).toEqual([]);
      // The masked card is what identifies a card: it is there, so the scan read the answers.
      expect(answers.join("\n")).toContain('"last4":"1111"');
    },
    LONG_RUN_MS,
  );

  it("finds cards, CVCs, secrets and JWTs planted in a log line, a table item, an outbox, a queue, a dimension and an answer", async () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTQlhURVNUMDAxIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";
    process.stdout.write(`{"level":"INFO","message":"card 4111 1111 1111 1111 used"}\n`);
    process.stdout.write(
      `${JSON.stringify({ _aws: { CloudWatchMetrics: [{ Namespace: "Billing", Dimensions: [["token"]], Metrics: [] }] }, token: jwt })}\n`,
    );
    await local.stack.dynamo.client.send(
      new PutCommand({
        TableName: local.stack.variables().TABLE_NAME,
        Item: {
          pk: "PLANTED",
          sk: "PLANTED",
          note: `card 5555-5555-5555-4444 key ${TEST_MERCHANT.aesKeyHex}`,
        },
      }),
    );
    // An event waiting in its outbox: the bus is down, so the local stream cannot deliver it before the scan.
    local.stack.eventBridge.outage = true;
    const { repository } = local.stack.services;
    await repository.createSubscription(subscription("sub_planted"));
    await repository.updateSubscription("sub_planted", {
      expect: { status: "active" },
      set: { status: "canceled", status_reason: "planted" },
      events: placedByWrite(subscription("sub_planted"), [
        { type: "subscription.canceled", subscription_id: "sub_planted", reason: "card 4000 0000 0000 0002" },
      ]),
    });
    await local.stack.sqs.client.send(
      new SendMessageCommand({
        QueueUrl: local.stack.intakeQueue.dlqUrl,
        MessageBody: JSON.stringify({ card: { cvc: "618" }, secret: TEST_MERCHANT.webhookSecret }),
      }),
    );
    const sources = await stackLeakSources(local.stack, {
      output: output.text(),
      httpBodies: [`{"apiKey":"${API_KEY}"}`],
    });
    local.stack.eventBridge.outage = false;
    const hits = scanForLeaks(sources, secrets).map(
      ({ where, what }) =>
        `${where.replace(/ line \d+/, " line").replace(/(table item|outbox) \S*sub_planted.*/, "$1 sub_planted")} ⇒ ${what}`,
    );
    expect(hits.sort()).toEqual(
      [
        "log line ⇒ card 4111…1111",
        "log line ⇒ JWT",
        "log line metric dimension token ⇒ JWT",
        "table item PLANTED PLANTED ⇒ card 5555…4444",
        "table item PLANTED PLANTED ⇒ AES key",
        "table item sub_planted ⇒ card 4000…0002",
        "outbox sub_planted ⇒ card 4000…0002",
        "queue intake-dlq ⇒ cvc",
        "queue intake-dlq ⇒ webhook secret",
        "HTTP answer 1 ⇒ merchant API key 0",
      ].sort(),
    );
    // A hit shows where, never the secret itself.
    for (const hit of scanForLeaks(sources, secrets))
      expect(hit.context).not.toMatch(/4111 1111|5555-5555|eyJhbGci/);
  });
});
