import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as SERVICE_SETS from "../../../functions/composition/service-sets";
import { basicAuthorization } from "../../../functions/gateway/context";
import { run as processCharges } from "../../../functions/handlers/process-charges";
import { metrics } from "../../../functions/lambda/observability";
import { receiveLambdaEvent } from "../../../local/lambda/sqs-lambda-event";
import { BillingStack } from "../../../local/stack/billing-stack";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { captureOutput, TestContainer } from "../../support/handler-env";
import type { ApiAnswer, ApiCall } from "../../support/merchant-api";
import {
  deployedMerchantApi,
  renewMerchantApi,
  storeApiKeyDigest,
} from "../../support/merchant-api-handlers";

/*
 * Card data (README, Layout): card number and CVC live only in memory for one request. Sign-ups, ad hoc and scheduled
 * charges, refunds and the attempt sweep run with test cards through the deployed handlers while every byte written
 * to stdout and stderr (Powertools logger, EMF metrics, warnings) is captured; then the log lines, every API answer,
 * every queued SQS message, every published event and every item of the billing table are searched for card data and
 * secrets.
 */

const DAY = 86_400_000;
const API_KEY = "mk_test_3e8f1a6c9b2d4e7f0a5c8b1d3e6f9a2c";
const WRONG_KEY = "mk_test_0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c";
const CVC = "7391";
const CARDS = {
  approve: "4111111111111111",
  approveToo: "5555555555554444",
  declineOnRebill: "4000000000000341",
  decline: "4000000000009995",
  acquirerError: "4000000000000119",
};

let stack: BillingStack;
let apiKeySecretArn: string;
const container = new TestContainer(() => stack);
const api = deployedMerchantApi(container);

beforeAll(async () => {
  stack = await BillingStack.start({ policy: { inflightWindowMs: 60_000 } });
  apiKeySecretArn = storeApiKeyDigest(stack, API_KEY);
  renewMerchantApi(container, apiKeySecretArn);
});
afterAll(async () => {
  await stack.close();
});

const customer = { name: "Alan Turing", email: "alan@example.com", phone: "+44 20 7946 0000" };
const plan = { amount: "30.00", currency: "USD", interval_months: 1 };
const withCard = (number: string) => ({ customer, plan, card: { number, expiry: "203012", cvc: CVC } });

/** Everything that must never appear anywhere. */
const FORBIDDEN = [
  ...Object.values(CARDS),
  TEST_MERCHANT.apiKey,
  basicAuthorization(TEST_MERCHANT.apiKey).slice("Basic ".length),
  TEST_MERCHANT.aesKeyHex,
  TEST_MERCHANT.aesKeyHex.toUpperCase(),
  TEST_MERCHANT.partnerApiKey,
  API_KEY,
  WRONG_KEY,
];
/** The CVC as a token of its own (ids and timestamps may hold the digits inside longer runs). */
const CVC_TOKEN = new RegExp(`(?<![0-9A-Za-z])${CVC}(?![0-9A-Za-z])`);
const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./;
const CARD_FIELD_VALUE = /"(?:cvc|card_number|expiry_date)"\s*:\s*"(?!\[REDACTED\])/;

function leaksIn(text: string): string[] {
  const found = FORBIDDEN.filter((secret) => text.includes(secret)).map((secret) => `${secret.slice(0, 6)}…`);
  if (CVC_TOKEN.test(text)) found.push("CVC");
  if (JWT.test(text)) found.push("JWT");
  if (CARD_FIELD_VALUE.test(text)) found.push("card field with a value");
  return found;
}

describe("no card data or secret leaves the request", () => {
  it("in logs, answers, queued messages, events or the table, through sign-up, charges and refunds", async () => {
    const output = captureOutput();
    const answers: ApiAnswer[] = [];
    const send = async (method: string, path: string, options: ApiCall = {}) => {
      const answer = await api(method, path, { apiKey: API_KEY, ...options });
      answers.push(answer);
      return answer;
    };
    const idOf = (answer: ApiAnswer) =>
      z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;

    // Sign-ups: approved, declined at once, approved but declining every REBILL, acquirer error (outcome unknown).
    const approved = await send("POST", "/v1/subscriptions", {
      body: withCard(CARDS.approve),
      idempotencyKey: "s1",
    });
    await send("POST", "/v1/subscriptions", { body: withCard(CARDS.approve), idempotencyKey: "s1" });
    const other = await send("POST", "/v1/subscriptions", { body: withCard(CARDS.approveToo) });
    const rebillDecliner = await send("POST", "/v1/subscriptions", { body: withCard(CARDS.declineOnRebill) });
    const declined = await send("POST", "/v1/subscriptions", { body: withCard(CARDS.decline) });
    const unknown = await send("POST", "/v1/subscriptions", { body: withCard(CARDS.acquirerError) });
    expect([approved, other, rebillDecliner, declined, unknown].map((answer) => answer.status)).toEqual([
      201, 201, 201, 422, 202,
    ]);
    // Refused before any call: card data in an unknown field, a malformed card, a key reused with another card.
    await send("POST", "/v1/subscriptions", { body: { ...withCard(CARDS.approve), pan: CARDS.approve } });
    await send("POST", "/v1/subscriptions", {
      body: { ...withCard(CARDS.approve), card: { number: `${CARDS.approve} `, expiry: "203012", cvc: CVC } },
    });
    await send("POST", "/v1/subscriptions", { body: withCard(CARDS.approveToo), idempotencyKey: "s1" });
    stack.sandbox.faults.configure({ errorRate: 1 });
    await send("POST", "/v1/subscriptions", { body: withCard(CARDS.approveToo) });
    stack.sandbox.faults.configure({});
    // Unauthorized calls.
    await api("POST", "/v1/subscriptions", { apiKey: WRONG_KEY, body: withCard(CARDS.approve) });
    await api("GET", `/v1/subscriptions/${idOf(approved)}`, {
      headers: { authorization: `Basic ${API_KEY}` },
    });

    // Ad hoc charges (one repeated), refunds, reads.
    const ids = [approved, other, rebillDecliner].map(idOf);
    for (const id of ids) {
      await send("POST", `/v1/subscriptions/${id}/charges`, {
        body: { amount: "4.20" },
        idempotencyKey: `c-${id}`,
      });
      await send("POST", `/v1/subscriptions/${id}/charges`, {
        body: { amount: "4.20" },
        idempotencyKey: `c-${id}`,
      });
      await send("POST", `/v1/charges/${id}-0-0/refunds`, { body: { amount: "5.00", reason: "goodwill" } });
      await send("POST", `/v1/charges/${id}-0-0/refunds`, { body: { reason: "the rest" } });
      await send("GET", `/v1/subscriptions/${id}`);
      await send("GET", `/v1/subscriptions/${id}/charges`);
    }

    // A month later: the charge run queues the due subscriptions, the worker charges them (one REBILL declines), and
    // the attempt sweep settles the sign-up whose outcome was unknown.
    await stack.clock.set(new Date(Date.now() + 32 * DAY));
    expect((await stack.chargeRun()).enqueued).toBe(3);
    const queued: string[] = [];
    const worker = await SERVICE_SETS.chargeWorker.from(stack.composition);
    for (
      let event = await receiveLambdaEvent(stack.sqs.client, stack.chargeQueue.queueUrl);
      event.Records.length > 0;
    ) {
      queued.push(...event.Records.map((record) => record.body));
      await processCharges(event, worker);
      metrics.publishStoredMetrics(); // what the handler's middleware does after each invocation
      event = await receiveLambdaEvent(stack.sqs.client, stack.chargeQueue.queueUrl);
    }
    expect((await stack.attemptSweep()).examined).toBeGreaterThan(0);
    for (const url of [stack.chargeQueue.queueUrl, stack.chargeQueue.dlqUrl]) {
      const event = await receiveLambdaEvent(stack.sqs.client, url);
      queued.push(...event.Records.map((record) => record.body));
    }
    expect(queued.length).toBeGreaterThanOrEqual(3);

    const { Items = [] } = await stack.dynamo.client.send(
      new ScanCommand({ TableName: stack.variables().TABLE_NAME }),
    );
    const logs = output.text();
    // The capture saw the functions at work: log lines and metrics of the API, the authorizer and the worker.
    expect(logs).toContain("merchant API request refused");
    expect(logs).toContain("Answers4xx");
    expect(logs).toContain("ChargeDeclined");

    const places = {
      logs,
      answers: answers.map((answer) => answer.text).join("\n"),
      queued: queued.join("\n"),
      events: JSON.stringify(await stack.deliveredEntries()),
      table: JSON.stringify(Items),
    };
    for (const [place, text] of Object.entries(places)) expect(leaksIn(text), place).toEqual([]);
    // The masked card is what identifies a card: it is there.
    expect(places.answers).toContain('"first4":"4111","last4":"1111"');
  }, 60_000);
});
