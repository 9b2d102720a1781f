import type { DynamoDBStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoDbBillingRepository } from "../../../functions/adapters/dynamodb/dynamodb-billing-repository";
import { type OutboxEvent, placedByWrite } from "../../../functions/core/base/events";
import type { BillingRepository } from "../../../functions/core/ports/billing-repository";
import { outboxAdditionsOf } from "../../../functions/inbound/outbox-stream";
import { type LocalDynamoDb, startDynalite } from "../../../local/aws/dynamodb-emulator";
import { countDynamoRequests } from "../../../local/aws/sdk-request-counter";
import { LocalTableStream } from "../../../local/lambda/table-stream";
import { subscription } from "../../support/billing-repository-contract";

/*
 * The table's stream in local mode over dynalite in this process: it sees the table's writes, so it polls the outbox
 * index after one, and not while the table is quiet.
 */

let db: LocalDynamoDb;
let repository: BillingRepository;
let tableName: string;
let requests: ReturnType<typeof countDynamoRequests>;

beforeAll(async () => {
  db = await startDynalite();
  tableName = await db.createBillingTable();
  repository = createDynamoDbBillingRepository({ client: db.client, tableName });
  requests = countDynamoRequests(db.client);
});
afterAll(() => db.close());

/** A stream whose function delivers each record's events into `delivered` and marks them delivered. */
function streamInto(delivered: OutboxEvent[], onWrite: LocalDynamoDb["onWrite"]) {
  return new LocalTableStream({
    client: db.client,
    tableName,
    repository,
    batchSize: 10,
    idleMs: 20,
    onWrite,
    onError: (error) => {
      throw error;
    },
    invoke: async (event: DynamoDBStreamEvent) => {
      for (const record of event.Records) {
        const { ref, events, outbox } = outboxAdditionsOf(record);
        delivered.push(...events);
        await repository.markDelivered(
          ref,
          events.map((added) => added.event_id),
          outbox,
        );
      }
      return { batchItemFailures: [] };
    },
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await pause(10);
  }
}

describe("the local table stream", () => {
  it("delivers an outbox soon after the write that filled it, and reads nothing while the table is quiet", async () => {
    expect(db.onWrite).toBeDefined();
    const delivered: OutboxEvent[] = [];
    const stream = streamInto(delivered, db.onWrite);
    stream.start();
    try {
      await pause(200);
      requests.take();
      await pause(1_000);
      // Polling every 20 ms would have queried the 16 outbox shards some fifty times.
      expect(requests.take().QueryCommand ?? 0).toBe(0);

      const created = subscription("sub_stream_1");
      const events = placedByWrite(created, [
        { type: "subscription.activated", subscription_id: created.subscription_id },
      ]);
      await repository.createSubscription(created, events);
      // Well before the quiet poll (5 s): the write woke it.
      await until(() => delivered.length === 1, 2_000);
      expect(delivered[0]).toMatchObject({ type: "subscription.activated", subscription_id: "sub_stream_1" });
    } finally {
      await stream.stop();
    }
  });

  it("polls on its interval where it cannot see the writes (an emulator started elsewhere)", async () => {
    const stream = streamInto([], undefined);
    stream.start();
    try {
      await pause(200);
      requests.take();
      await pause(500);
      expect(requests.take().QueryCommand ?? 0).toBeGreaterThan(16);
    } finally {
      await stream.stop();
    }
  });
});
