import { ChangeMessageVisibilityCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { repository } from "../../../functions/composition/components";
import { functionNamed } from "../../../functions/function-table";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { receiveLambdaEvent } from "../../../local/lambda/sqs-lambda-event";
import { decoratedComposition, decoration, SimulatedCrash } from "../../../local/stack/crash-injection";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import { eventsOf, subscriptionOf } from "../../support/billing-scenarios";
import { captureOutput } from "../../support/handler-env";
import { errorOf } from "../../support/merchant-api";
import { drainIntake, invokeRoute } from "../../support/webhook-receiver";
import { stackWithWebhooks } from "../../support/webhook-stack";

/*
 * Refunds, plan changes and gateway-managed recurring plans through the merchant API's handlers, the
 * sandbox's recurring notices through our webhook receiver and process-intake, on the real adapters and the
 * stateful sandbox.
 */

const { stack, receiver, container, call } = stackWithWebhooks({
  start: new Date("2027-05-31T08:00:00.000Z"),
});

const view = z.looseObject({ subscription_id: z.string(), next_charge_at: z.string().nullable() });

async function signUp(billing: "token" | "recurring" = "token") {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Ada Lovelace", email: "ada@example.com" },
      card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
      billing,
      plan: { amount: "50.00", currency: "USD", interval_months: 1 },
    },
  });
  expect(answer.status).toBe(201);
  return view.parse(answer.json);
}

const adjust = (id: string, amount: string) =>
  call("POST", `/v1/subscriptions/${id}/adjust`, { body: { amount, proration: "none" } });

/** The sandbox charges the plans it manages that fall due within the month, and calls their notice URLs. */
async function aMonthOfGatewayCharges(): Promise<void> {
  await stack().clock.advance("P32D");
  await stack().sandbox.deliveries.settled();
}

/** The recurring notice our receiver took for a subscription (and queued for process-intake). */
function noticeOf(id: string) {
  const notice = receiver().requests.find(
    (request) =>
      request.url.startsWith("/webhooks/recurring?") && request.url.includes(`subscription_id=${id}&`),
  );
  if (!notice) throw new Error(`no recurring notice for ${id}`);
  return notice;
}

const orderIdOf = (notice: { readonly body: string }) =>
  z.object({ order_id: z.string() }).parse(JSON.parse(notice.body)).order_id;

const processedLine = z.object({
  message: z.literal("intake message processed"),
  outcome: z.string(),
  note: z.string(),
});

/** process-intake fed from the intake queue: the outcome and note it logged for each message. */
async function processIntake() {
  const output = captureOutput();
  await drainIntake(container);
  return output.logs().flatMap((line) => {
    const processed = processedLine.safeParse(line);
    return processed.success ? [{ outcome: processed.data.outcome, note: processed.data.note }] : [];
  });
}

const ignoredBecause = (why: string) => [
  { outcome: "recurring_ignored", note: expect.stringContaining(why) },
];

describe("refunds", () => {
  it("refunds partially, then the rest, never below zero, once per Idempotency-Key", async () => {
    const { subscription_id } = await signUp();
    const charge = { subscription_id, period: 0, attempt: 0 };
    const chargeId = `${subscription_id}-0-0`;
    const refund = (body: object, idempotencyKey: string) =>
      call("POST", `/v1/charges/${chargeId}/refunds`, { body, idempotencyKey });

    const first = await refund({ amount: "20.00", reason: "partial" }, "r1");
    expect(first).toMatchObject({ status: 201, json: { amount: "20.00", status: "succeeded" } });
    const again = await refund({ amount: "20.00", reason: "partial" }, "r1");
    expect(again).toMatchObject({ status: 201, json: first.json });
    const tooMuch = await refund({ amount: "40.00", reason: "too much" }, "r2");
    expect(tooMuch.status).toBe(422);
    expect(errorOf(tooMuch)).toMatchObject({
      code: "not_refundable",
      message: "amount exceeds the balance 30.00",
    });
    const rest = await refund({ reason: "the rest" }, "r3");
    expect(rest).toMatchObject({ status: 201, json: { amount: "30.00" } });
    expect((await stack().services.repository.getAttempt(charge))?.refunded_amount).toBe("50.00");

    const sale = stack().sandbox.state.payments.findFinalTransaction(TEST_MERCHANT.mid, chargeId);
    expect(Number(sale?.balance)).toBe(0);
    const refunds = [...stack().sandbox.state.payments.refunds()].filter((made) => made.orderId === chargeId);
    expect(refunds.map((made) => Number(made.amount))).toEqual([20, 30]);
    expect(await stack().services.repository.listRefunds(subscription_id)).toHaveLength(2);
  });

  it("refuses to refund what was not charged", async () => {
    const refusal = await call("POST", "/v1/charges/sub_none-0-0/refunds", { body: { reason: "x" } });
    expect(refusal.status).toBe(422);
    expect(errorOf(refusal).code).toBe("not_refundable");
  });
});

describe("plan changes", () => {
  it("adjusts a token plan from the next charge on and cancels it", async () => {
    const { subscription_id } = await signUp();
    const tokenId = (await subscriptionOf(stack(), subscription_id)).token_id ?? "";
    expect(tokenId).not.toBe("");
    expect(await adjust(subscription_id, "65.00")).toMatchObject({
      status: 200,
      json: { plan: { amount: "65.00" } },
    });
    expect(await call("DELETE", `/v1/subscriptions/${subscription_id}`)).toMatchObject({
      status: 200,
      json: { status: "canceled", next_charge_at: null },
    });
    expect((await subscriptionOf(stack(), subscription_id)).next_charge_at).toBeUndefined();
    // The charge worker deletes the canceled subscription's token at the gateway: no live token is kept.
    await stack().drainChargeQueue();
    expect(stack().sandbox.state.tokens.find(TEST_MERCHANT.mid, tokenId)?.status).toBe("deleted");
    expect(await stack().services.repository.getToken(tokenId)).toMatchObject({ status: "deleted" });
    const late = await adjust(subscription_id, "70.00");
    expect(late.status).toBe(409);
    expect(errorOf(late).code).toBe("subscription_conflict");
    const announced = await eventsOf(stack(), subscription_id);
    expect(announced.filter((event) => event.type === "subscription.canceled")).toEqual([
      {
        type: "subscription.canceled",
        subscription_id,
        reason: "canceled_by_merchant",
        event_id: expect.any(String),
        occurred_at: expect.any(String),
        sequence: expect.any(Number),
        subscription: expect.objectContaining({ status: "canceled", status_reason: "canceled_by_merchant" }),
        // The MRR it paid until then (the plan adjusted to 65.00 a month) is churned.
        mrr_movements: [{ kind: "churned", currency: "USD", amount: "65.00" }],
      },
    ]);
  });

  it("records the gateway's recurring charges once each, after retrieve confirms them; adjust and delete go to the gateway", async () => {
    const signedUp = await signUp("recurring");
    const id = signedUp.subscription_id;
    expect(signedUp.next_charge_at).toBeNull();
    const { recurring_id } = await subscriptionOf(stack(), id);
    expect(recurring_id).toBeDefined();

    await aMonthOfGatewayCharges();
    const notice = noticeOf(id);
    const orderId = orderIdOf(notice);
    expect(await processIntake()).toEqual([
      { outcome: "recurring_recorded", note: `recurring charge ${orderId}: succeeded` },
    ]);
    const after = await subscriptionOf(stack(), id);
    expect(after).toMatchObject({ period: 2, status: "active" });

    // On the plan's own URL: the same notice again, one for an order the gateway never sold, one naming
    // another plan. Nothing changes.
    const resent = [
      [notice, "already recorded"],
      [{ ...notice, body: JSON.stringify({ order_id: "forged-order-1" }) }, "retrieve shows no sale"],
      [
        { ...notice, body: JSON.stringify({ order_id: `${orderId}x`, recurring_id: "RC_OTHER_PLAN" }) },
        "names another plan",
      ],
    ] as const;
    for (const [request, why] of resent) {
      expect((await invokeRoute(container, request)).statusCode).toBe(200);
      expect(await processIntake()).toEqual(ignoredBecause(why));
    }
    expect(await subscriptionOf(stack(), id)).toEqual(after);
    expect(await stack().services.repository.listAttempts(id)).toHaveLength(2);

    expect((await adjust(id, "75.00")).status).toBe(200);
    expect(stack().sandbox.state.recurring.find(TEST_MERCHANT.mid, recurring_id ?? "")?.amount).toBe("75.00");
    expect((await call("DELETE", `/v1/subscriptions/${id}`)).status).toBe(200);
    expect(stack().sandbox.state.recurring.find(TEST_MERCHANT.mid, recurring_id ?? "")?.status).not.toBe(
      "active",
    );
  });

  it("a gateway charge whose subscription write was lost to a crash moves the subscription on when the notice comes again", async () => {
    const { subscription_id } = await signUp("recurring");
    await aMonthOfGatewayCharges();
    const orderId = orderIdOf(noticeOf(subscription_id));

    // process-intake over a repository that dies after the ledger line, before the subscription's write.
    const crashing = new LambdaFunctions(
      decoratedComposition(stack().composition, [
        decoration(repository, (built) => ({
          ...built,
          updateSubscription: async () => {
            throw new SimulatedCrash("died after the ledger line");
          },
        })),
      ]),
    );
    const { queueUrl } = stack().intakeQueue;
    const event = await receiveLambdaEvent(stack().sqs.client, queueUrl);
    const [record] = event.Records;
    if (record === undefined || event.Records.length !== 1) throw new Error("expected the one notice queued");
    expect(await crashing.invoker(functionNamed("process-intake"))(event)).toEqual({
      batchItemFailures: [{ itemIdentifier: record.messageId }],
    });
    expect(await subscriptionOf(stack(), subscription_id)).toMatchObject({ period: 1 });
    expect(await stack().services.repository.listAttempts(subscription_id)).toContainEqual(
      expect.objectContaining({ order_id: orderId, status: "succeeded" }),
    );

    // SQS hands the failed message over again once its visibility timeout has run out.
    await stack().sqs.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    expect(await processIntake()).toEqual(ignoredBecause("already recorded"));
    expect(await subscriptionOf(stack(), subscription_id)).toMatchObject({ period: 2, status: "active" });
    const charges = (await eventsOf(stack(), subscription_id)).filter(
      (event) => event.type === "charge.succeeded",
    );
    expect(charges.map((event) => event.order_id)).toEqual([expect.any(String), orderId]);
  });

  it("a gateway charge of a canceled subscription is recorded and announced, and the subscription stays canceled", async () => {
    const { subscription_id } = await signUp("recurring");
    await aMonthOfGatewayCharges();
    const orderId = orderIdOf(noticeOf(subscription_id));
    // The merchant cancels after the gateway charged, before process-intake took the notice.
    expect((await call("DELETE", `/v1/subscriptions/${subscription_id}`)).status).toBe(200);

    // The queue also holds the earlier test's plan's next charge: this subscription's state tells the story.
    await processIntake();
    expect(await stack().services.repository.listAttempts(subscription_id)).toContainEqual(
      expect.objectContaining({ order_id: orderId, status: "succeeded" }),
    );
    expect(await subscriptionOf(stack(), subscription_id)).toMatchObject({ status: "canceled", period: 1 });
    const charges = (await eventsOf(stack(), subscription_id)).filter(
      (event) => event.type === "charge.succeeded",
    );
    expect(charges.map((event) => event.order_id)).toEqual([expect.any(String), orderId]);
  });
});
