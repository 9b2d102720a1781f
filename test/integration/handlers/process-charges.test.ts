import type { SQSEvent, SQSRecord } from "aws-lambda";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createSqsClient } from "../../../functions/adapters/aws/sqs-client";
import { run as processCharges } from "../../../functions/handlers/process-charges";
import { logger, metrics } from "../../../functions/lambda/observability";
import { dueSubscription, fakeChargeServices } from "../../support/fake-billing";
import { spyOnMetrics } from "../../support/metric-spy";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";

// SQS here is a recording server answering {} in SQS's JSON protocol: the worker's only call is
// ChangeMessageVisibility for a retry, and the test reads what was asked.
let sqsServer: RecordingServer;
let recorded: ReturnType<typeof spyOnMetrics>;

beforeAll(async () => {
  sqsServer = await startRecordingServer(() => ({ json: {} }));
});
afterAll(() => sqsServer.close());
beforeEach(() => {
  sqsServer.reset();
  recorded = spyOnMetrics();
});
afterEach(() => metrics.clearMetrics());

const QUEUE_URL = "http://127.0.0.1/000000000000/charge-work";

function record(messageId: string, body: string, receiveCount = 1): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: "1800000000000",
      SenderId: "AIDAEXAMPLE",
      ApproximateFirstReceiveTimestamp: "1800000000000",
    },
    messageAttributes: {},
    md5OfBody: "",
    eventSource: "aws:sqs",
    eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:charge-work",
    awsRegion: "us-east-1",
  };
}

const charge = (id: string) => JSON.stringify({ subscription_id: id, period: 1 });

function worker() {
  const fakes = fakeChargeServices();
  const sqs = createSqsClient({
    endpoint: sqsServer.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  return { ...fakes, services: { ...fakes.deps, consumer: { client: sqs, queueUrl: QUEUE_URL } } };
}

describe("processCharges", () => {
  it("charges each message, reports only retries and malformed bodies as batch item failures, and counts", async () => {
    const { repository, gateway, services, written } = worker();
    for (const id of ["sub_ok", "sub_declined", "sub_busy", "sub_lost"]) {
      await repository.createSubscription(dueSubscription(id));
    }
    gateway.script = ({ order_id }) => {
      if (order_id.startsWith("sub_declined")) return { kind: "declined", code: "CD01", message: "declined" };
      if (order_id.startsWith("sub_busy")) return { kind: "unavailable", reason: "HTTP 503", status: 503 };
      if (order_id.startsWith("sub_lost")) return { kind: "unknown", reason: "timeout" };
      return { kind: "success", value: { transaction_id: "SBXT00000000000000000001" } };
    };
    const event: SQSEvent = {
      Records: [
        record("m-ok", charge("sub_ok")),
        record("m-declined", charge("sub_declined")),
        record("m-busy", charge("sub_busy"), 2),
        record("m-lost", charge("sub_lost")),
        record("m-bad", "{not json"),
        record("m-gone", charge("sub_unknown")),
      ],
    };

    const response = await processCharges(event, services);

    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([
      "m-bad",
      "m-busy",
    ]);
    // The retry waits out its backoff (30 s · 2^(receive − 1)) through the message's visibility.
    expect(sqsServer.requests).toHaveLength(1);
    expect(sqsServer.requests[0]?.headers["x-amz-target"]).toBe("AmazonSQS.ChangeMessageVisibility");
    expect(JSON.parse(sqsServer.requests[0]?.body ?? "{}")).toMatchObject({
      QueueUrl: QUEUE_URL,
      ReceiptHandle: "receipt-m-busy",
      VisibilityTimeout: 60,
    });
    // The batch's messages run side by side: their events in any order.
    expect(written.map((event) => event.type).sort()).toEqual([
      "charge.failed",
      "charge.succeeded",
      "invoice.finalized",
      "subscription.past_due",
      "subscription.updated",
    ]);
    expect(recorded.values()).toEqual({
      ChargeSucceeded: 1,
      ChargeDeclined: 1,
      ChargeRejected: 0,
      ChargeUnknown: 1,
      GatewayUnavailable: 1,
      SubscriptionPastDue: 1,
      SubscriptionCanceled: 0,
      ChargeMessagesRetried: 1,
      ChargeMessagesMalformed: 1,
      ChargeMessagesFailed: 0,
    });
  });

  it("reports a message whose processing threw, and logs the failure without its card data", async () => {
    const { repository, services } = worker();
    await repository.createSubscription(dueSubscription("sub_broken"));
    vi.spyOn(repository, "claimAttempt").mockRejectedValue(
      new Error("storage refused card 4111111111111111"),
    );
    const errors = vi.spyOn(logger, "error").mockImplementation(() => undefined);

    const response = await processCharges({ Records: [record("m-broken", charge("sub_broken"))] }, services);

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: "m-broken" }] });
    expect(recorded.values().ChargeMessagesFailed).toBe(1);
    expect(errors).toHaveBeenCalledWith(
      "charge message failed",
      expect.objectContaining({ messageId: "m-broken" }),
    );
  });

  it("refuses a batch that is not an SQS event rather than guessing", async () => {
    const { services } = worker();
    const broken = { Records: [{ messageId: "m-1" }] };
    // @ts-expect-error -- a malformed event, as a misconfigured trigger could deliver
    await expect(processCharges(broken, services)).rejects.toThrow();
  });
});
