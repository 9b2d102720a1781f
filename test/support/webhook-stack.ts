import { ChangeMessageVisibilityBatchCommand } from "@aws-sdk/client-sqs";
import type { SQSEvent, SQSRecord } from "aws-lambda";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { z } from "zod";
import { deleteBatch } from "../../functions/adapters/aws/sqs-poller";
import type { CreateCheckoutBody } from "../../functions/api/merchant-api-schemas";
import { checkoutView } from "../../functions/api/merchant-api-views";
import { functionNamed } from "../../functions/function-table";
import { drainQueue } from "../../local/aws/sqs-emulator";
import { stubContext } from "../../local/lambda/lambda-context";
import { receiveLambdaEvent } from "../../local/lambda/sqs-lambda-event";
import { BillingStack, type BillingStackOptions } from "../../local/stack/billing-stack";
import { type captureOutput, TestContainer } from "./handler-env";
import type { ApiCall } from "./merchant-api";
import { deployedMerchantApi, storeApiKeyDigest } from "./merchant-api-handlers";
import { pathOf, type RecordedRequest } from "./recording-server";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

// A test file's billing stack as it is deployed around the gateway: the merchant API in front (API Gateway, the
// authorizer, the handlers), our webhook routes on a real HTTP server the sandbox calls (status_url, gateway and
// partner webhooks, recurring_noti_url), and process-intake fed from the intake queue; the steps of a payment-window
// checkout through them. Every function runs in one container of the stack, renewed before each test.

const API_KEY = "mk_test_webhook_stack_0123456789abcdef";
const VISA = "4111111111111111";

export type WindowCheckout = z.output<typeof checkoutView>;

/**
 * Starts the receiver and then the stack (our webhook base is the receiver's) before the file's tests, closes both
 * after them; before each test the container is renewed and the receiver's record cleared.
 */
export function stackWithWebhooks(options: Omit<BillingStackOptions, "webhookBaseUrl"> = {}) {
  let stack: BillingStack | undefined;
  let receiver: WebhookReceiver | undefined;
  let apiKeySecretArn = "";
  const currentStack = () => {
    if (stack === undefined) throw new Error("the stack starts in beforeAll");
    return stack;
  };
  const currentReceiver = () => {
    if (receiver === undefined) throw new Error("the receiver starts in beforeAll");
    return receiver;
  };
  const container = new TestContainer(currentStack);
  const api = deployedMerchantApi(container);
  /** A new container, with variables added to the stack's or taken away (undefined); the API key digests always. */
  const renew = (variables: Record<string, string | undefined> = {}) =>
    container.renew({ MERCHANT_API_KEY_HASH_SECRET_ARN: apiKeySecretArn, ...variables });
  beforeAll(async () => {
    receiver = await startWebhookReceiver(container);
    stack = await BillingStack.start({ ...options, webhookBaseUrl: receiver.webhookBaseUrl });
    apiKeySecretArn = storeApiKeyDigest(stack, API_KEY);
    // The file's own beforeAll may call the API already.
    renew();
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    renew();
    currentReceiver().reset();
  });
  const call = (method: string, path: string, options: ApiCall = {}) =>
    api(method, path, { apiKey: API_KEY, ...options });

  return {
    stack: currentStack,
    receiver: currentReceiver,
    container,
    renew,
    /** The merchant API, called with the stack's key. */
    call,
    /**
     * POST /v1/checkouts (a monthly USD 29.00 token plan returning to the merchant's page unless told otherwise;
     * `return_url: undefined` makes it hosted), which must answer 201.
     */
    async checkout(body: Partial<CreateCheckoutBody> = {}): Promise<WindowCheckout> {
      const answer = await call("POST", "/v1/checkouts", {
        body: {
          customer: { name: "Window Customer", email: "window@example.com" },
          plan: { amount: "29.00", currency: "USD", interval_months: 1 },
          billing: "token",
          return_url: "https://merchant.example/return",
          ...body,
        },
      });
      expect(answer.status, answer.text).toBe(201);
      return checkoutView.parse(answer.json);
    },
    /** POST /v1/subscriptions of a monthly USD 19.90 token plan with this card, which must answer 201: its id. */
    async signUp(cardNumber = VISA): Promise<string> {
      const answer = await call("POST", "/v1/subscriptions", {
        body: {
          customer: { name: "Card Customer", email: "card@example.com" },
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          card: { number: cardNumber, expiry: "203012", cvc: "123" },
        },
      });
      expect(answer.status, answer.text).toBe(201);
      return z.object({ subscription_id: z.string() }).parse(answer.json).subscription_id;
    },
    /** The renewals a month on: the clock moved 31 days, the charge run, the charge worker. */
    async renewals(): Promise<void> {
      await currentStack().clock.advance("P31D");
      await currentStack().chargeRun();
      await currentStack().drainChargeQueue();
    },
    /** The customer pays in the window the fgkey opens; the sandbox's callbacks have reached us when it returns. */
    async payInWindow(fgkey: string, cardNumber = VISA): Promise<void> {
      const reply = await fetch(`${currentStack().sandbox.url}/sandbox/windows/${fgkey}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card_number: cardNumber, expiry_date: "203012", cvc: "123" }),
      });
      expect(reply.status).toBe(200);
      await currentStack().sandbox.deliveries.settled();
    },
    /** The latest status_url call the sandbox made to us in this test. */
    statusCallback(): RecordedRequest {
      const request = currentReceiver().requests.findLast(
        (recorded) => pathOf(recorded) === "/webhooks/status",
      );
      if (request === undefined) throw new Error("status_url was not called");
      return request;
    },
  };
}

/** A status_url call of ours with this result, as the real gateway sends it (a form POST). */
export const statusCallbackOf = (query: string): RecordedRequest => ({
  method: "POST",
  url: "/webhooks/status",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: query,
});

/** Drops what is queued for process-intake without processing it (a callback held back, or lost). */
export async function discardIntake(stack: BillingStack): Promise<void> {
  const { client } = stack.sqs;
  const { queueUrl } = stack.intakeQueue;
  await deleteBatch(client, queueUrl, await drainQueue(client, queueUrl));
}

/**
 * One receive of the intake queue handed to process-intake as its event source mapping hands it: the successes are
 * deleted, the records it asked to retry are returned (they wait out their delay on the queue).
 */
export async function processIntakeOnce(
  container: TestContainer,
): Promise<{ readonly event: SQSEvent; readonly retried: SQSRecord[] }> {
  const { stack } = container;
  const event = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
  const response = await container.handler(functionNamed("process-intake"))(
    event,
    stubContext("process-intake"),
  );
  await deleteBatch(stack.sqs.client, stack.intakeQueue.queueUrl, event.Records, response.batchItemFailures);
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  return { event, retried: event.Records.filter((record) => failed.has(record.messageId)) };
}

/**
 * Retried messages come back now, as SQS delivers them once their delay has run out: the queue keeps real time, so a
 * delay meant for the stack's clock (moved on by the test) would otherwise outlast the test.
 */
export async function redeliver(stack: BillingStack, records: readonly SQSRecord[]): Promise<void> {
  await stack.sqs.client.send(
    new ChangeMessageVisibilityBatchCommand({
      QueueUrl: stack.intakeQueue.queueUrl,
      Entries: records.map((record, index) => ({
        Id: String(index),
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: 0,
      })),
    }),
  );
}

const processedLine = z.looseObject({
  message: z.literal("intake message processed"),
  outcome: z.string(),
  note: z.string().optional(),
});

/** What process-intake logged of each message it processed while `output` captured, in order. */
export function intakeOutcomes(output: ReturnType<typeof captureOutput>) {
  return output.logs().flatMap((line) => {
    const parsed = processedLine.safeParse(line);
    return parsed.success ? [{ outcome: parsed.data.outcome, note: parsed.data.note }] : [];
  });
}
