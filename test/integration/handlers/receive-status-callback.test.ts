import { describe, expect, it } from "vitest";
import { approximateMessageCount } from "../../../local/aws/sqs-emulator";
import { captureOutput } from "../../support/handler-env";
import { statusResultOf } from "../../support/payment-sandbox";
import { drainIntake, invokeRoute } from "../../support/webhook-receiver";
import {
  discardIntake,
  intakeOutcomes,
  stackWithWebhooks,
  statusCallbackOf,
  type WindowCheckout,
} from "../../support/webhook-stack";

/*
 * status_url end to end: a checkout started through the merchant API (POST /v1/checkouts); the sandbox completes its
 * payment window and calls our status_url; API Gateway's v2 event reaches receive-status-callback, which queues the
 * query untouched; process-intake (SQS event from local-aws-sqs) verifies it with the gateway before anything
 * changes. Handlers run as Lambda runs them, built from the environment of the local stack.
 */

const VISA = "4111111111111111";

const { stack, container, checkout, payInWindow, statusCallback } = stackWithWebhooks();

const stored = async (started: WindowCheckout) => ({
  subscription: await stack().services.repository.getSubscription(started.subscription_id),
  attempts: await stack().services.repository.listAttempts(started.subscription_id),
});

const intakeDepth = () => approximateMessageCount(stack().sqs.client, stack().intakeQueue.queueUrl);
const verifies = () => stack().sandbox.faults.counters().byRoute["payments.verify"]?.requests ?? 0;

/** A paid window whose status_url call is held back (dropped from the queue): the test sends its own. */
async function paidWindowQuery(): Promise<{ started: WindowCheckout; query: string }> {
  const started = await checkout();
  await payInWindow(started.fgkey);
  await discardIntake(stack());
  return { started, query: statusResultOf(statusCallback()) };
}

describe("status_url intake (receive-status-callback → SQS → process-intake)", () => {
  it("acknowledges at once, queues the query untouched and activates the checkout only after verify", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey);
    // The real gateway's delivery: a form POST to the URL as given, no query string.
    const request = statusCallback();
    expect(request).toMatchObject({
      method: "POST",
      url: "/webhooks/status",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const query = statusResultOf(request);
    // The window result carries masked card fields only.
    const params = new URLSearchParams(query);
    expect(params.get("card_number1")).toBe("4111");
    expect(query).not.toContain(VISA);

    // The sandbox saw our acknowledgement; nothing changed yet: the message waits on the queue.
    const [delivery] = stack().sandbox.deliveries.entries("status_url").slice(-1);
    expect(delivery).toMatchObject({
      method: "POST",
      body: query,
      status: 200,
      rescode: "0000",
      acknowledged: true,
    });
    expect((await stored(started)).subscription?.status).toBe("pending");
    expect(await intakeDepth()).toBe(1);

    const output = captureOutput();
    expect(await drainIntake(container)).toEqual([{ batchItemFailures: [] }]);
    const { subscription, attempts } = await stored(started);
    expect(subscription).toMatchObject({
      status: "active",
      period: 1,
      card: { first4: "4111", last4: "1111" },
    });
    expect(attempts).toMatchObject([{ status: "succeeded", transaction_id: params.get("transaction_id") }]);
    expect((await stack().deliveredEntries()).map((entry) => entry.DetailType).sort()).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.activated",
      "subscription.created",
    ]);
    expect(output.metrics()).toMatchObject({
      "Billing/CheckoutsCompleted": 1,
      "Billing/StatusCallbacksRejected": 0,
    });

    // status_url "may be called more than once": each repeat is queued, changes nothing and asks the gateway nothing.
    const verified = verifies();
    for (const again of await Promise.all([
      invokeRoute(container, request),
      invokeRoute(container, request),
    ])) {
      // The answer the real gateway waits for before it stops re-sending: text, not JSON.
      expect(again).toMatchObject({
        statusCode: 200,
        headers: { "content-type": "text/plain; charset=utf-8" },
        body: "rescode=0000&resmsg=Success",
      });
    }
    const repeats = captureOutput();
    await drainIntake(container);
    expect(intakeOutcomes(repeats).map(({ outcome }) => outcome)).toEqual([
      "status_duplicate",
      "status_duplicate",
    ]);
    expect(verifies()).toBe(verified);
    expect(await stored(started)).toEqual({ subscription, attempts });
    expect(await stack().deliveredEntries()).toHaveLength(4);
  });

  it("a card paid in its own currency (DCC): the result names both amounts, the line keeps what the card was billed", async () => {
    const started = await checkout();
    await payInWindow(started.fgkey, "4000000000000416");
    const params = new URLSearchParams(statusResultOf(statusCallback()));
    // The real gateway's form: the short names (basecur, foreigncur, …) or the long ones, as the sandbox is set.
    const field = (long: string, short: string) => params.get(long) ?? params.get(short);
    // The checkout's USD total at the sandbox's 1350 won to the dollar.
    const billed = String(Math.round(Number(field("amount", "amt")) * 1350));
    expect([field("foreign_currency", "foreigncur"), field("foreign_amount", "foreignamt")]).toEqual([
      "KRW",
      billed,
    ]);
    await drainIntake(container);
    const { attempts } = await stored(started);
    expect(attempts).toMatchObject([
      { status: "succeeded", billed: { currency: "KRW", amount: billed, rate: "1350" } },
    ]);
  });

  it("a query with any parameter altered, removed or added is rejected and changes nothing", async () => {
    const { started, query } = await paidWindowQuery();
    const genuine = new URLSearchParams(query);
    const before = await stored(started);
    const published = (await stack().deliveredEntries()).length;

    const names = [...genuine.keys()];
    expect(names).toEqual(
      expect.arrayContaining(["order_id", "amount", "rescode", "ver", "fgkey", "token_id"]),
    );
    const tampered = names.flatMap((name) => {
      const altered = new URLSearchParams(genuine);
      // A letter, not a digit: a digit appended to a timestamp could make a card-number-shaped run, which the
      // receiver refuses before verify is asked.
      altered.set(name, name === "rescode" ? "0001" : `${genuine.get(name)}X`);
      const removed = new URLSearchParams(genuine);
      removed.delete(name);
      return [altered.toString(), removed.toString()];
    });
    const withExtra = new URLSearchParams(genuine);
    withExtra.set("recurring_id", "RC0000000000000001");
    for (const forged of [...tampered, withExtra.toString()]) {
      expect((await invokeRoute(container, statusCallbackOf(forged))).statusCode).toBe(200);
    }
    const output = captureOutput();
    const responses = await drainIntake(container);
    expect(responses.flatMap((response) => response.batchItemFailures)).toEqual([]);
    const outcomes = intakeOutcomes(output).map(({ outcome }) => outcome);
    expect(outcomes).toEqual(Array.from({ length: 2 * names.length + 1 }, () => "status_rejected"));
    expect(await stored(started)).toEqual(before);
    expect(before.subscription?.status).toBe("pending");
    expect(await stack().deliveredEntries()).toHaveLength(published);

    // The genuine result, sent as the seed's GET query this time, still completes the checkout: the rejections were
    // the tampering's doing.
    const seedForm = await invokeRoute(container, {
      method: "GET",
      url: `/webhooks/status?${genuine}`,
      headers: {},
      body: "",
    });
    expect(seedForm).toMatchObject({ statusCode: 200, body: "rescode=0000&resmsg=Success" });
    await drainIntake(container);
    expect((await stored(started)).subscription?.status).toBe("active");
  });

  it("takes the query from a JSON body too", async () => {
    // The form the sandbox posted is lost: the same result comes again as a JSON body.
    const { started, query } = await paidWindowQuery();
    const reply = await invokeRoute(container, {
      method: "POST",
      url: "/webhooks/status",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(Object.fromEntries(new URLSearchParams(query))),
    });
    expect(reply.statusCode).toBe(200);
    const output = captureOutput();
    await drainIntake(container);
    // Re-encoded in the same order: verify accepts it, and the checkout completes.
    expect(output.metrics()).toMatchObject({
      "Billing/CheckoutsCompleted": 1,
      "Billing/StatusCallbacksRejected": 0,
    });
    expect((await stored(started)).subscription?.status).toBe("active");
  });

  it("refuses to queue a query that carries a card number or a CVC, or is empty", async () => {
    const output = captureOutput();
    for (const query of [`card_number=${VISA}&order_id=x`, "order_id=x&cvc=123", ""]) {
      const reply = await invokeRoute(container, statusCallbackOf(query));
      expect(reply.statusCode).toBe(400);
      expect(new URLSearchParams(String(reply.body)).get("rescode")).toBe("EC00");
      expect(reply.body).not.toContain(VISA);
    }
    expect(await intakeDepth()).toBe(0);
    expect(output.metrics()).toMatchObject({ "Billing/StatusCallbacksRefused": 1 });
    expect(output.text()).not.toContain(VISA);
  });
});
