import { createHash, randomUUID } from "node:crypto";
import { ConditionalCheckFailedException, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoDbDocumentClient } from "../../../functions/adapters/aws/dynamodb-client";
import {
  createDynamoDbBillingRepository,
  type DynamoDbBillingRepositoryOptions,
} from "../../../functions/adapters/dynamodb/dynamodb-billing-repository";
import {
  attemptKey,
  DUE_WATERMARK_KEY,
  dedupKey,
  refundKey,
  shardOf,
  subscriptionKey,
  TTL_ATTRIBUTE,
  tokenKey,
} from "../../../functions/adapters/table/billing-table";
import type { BillingRepository } from "../../../functions/core/ports/billing-repository";
import { LOCAL_CREDENTIALS, LOCAL_REGION, type LocalDynamoDb } from "../../../local/aws/dynamodb-emulator";
import {
  attempt,
  CREATED,
  collect,
  describeBillingRepositoryContract,
  minutes,
  refund,
  subscription,
  token,
} from "../../support/billing-repository-contract";
import { countingClient } from "../../support/counting-client";
import { describeDocumentStoreContract } from "../../support/document-store-contract";
import { describeSettlementStoreContract } from "../../support/settlement-store-contract";
import { LOST_CLAIM_REQUESTS, startTestDynamoDb } from "../../support/test-dynamodb";

// The DynamoDB repository: the repository contract, then what is its own (the single-table layout, the sparse
// indexes kept in step with their fields, the due watermark, and one request per operation).

let db: LocalDynamoDb;
const countingClients: { destroy(): void }[] = [];
beforeAll(async () => {
  db = await startTestDynamoDb();
});
afterAll(async () => {
  for (const client of countingClients) client.destroy();
  await db.close();
});

const at = (iso: string) => new Date(iso);

async function freshRepository(
  options: Partial<DynamoDbBillingRepositoryOptions> = {},
): Promise<{ repository: BillingRepository; tableName: string }> {
  const tableName = await db.createBillingTable();
  const repository = createDynamoDbBillingRepository({ client: db.client, tableName, ...options });
  return { repository, tableName };
}

/** A repository whose requests are counted, on a table of its own. */
async function countedRepository(options: Partial<DynamoDbBillingRepositoryOptions> = {}) {
  const counting = countingClient(db.endpoint);
  countingClients.push(counting.client);
  const tableName = await db.createBillingTable();
  const repository = createDynamoDbBillingRepository({ client: counting.client, tableName, ...options });
  const requests = async (call: () => Promise<unknown>) => {
    counting.take();
    await call();
    return counting.take();
  };
  return { repository, tableName, counting, requests };
}

async function rawItem(tableName: string, key: Record<string, string>) {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

describe("the repository contract", () => {
  describeBillingRepositoryContract(async (options) => (await freshRepository(options)).repository);
  describeDocumentStoreContract(async () => (await freshRepository({ pageSize: 2 })).repository);
  describeSettlementStoreContract(async () => (await freshRepository()).repository);
});

describe("the table layout", () => {
  it("keys a subscription and its due index entry; a record never carries the key attributes", async () => {
    const { repository, tableName } = await freshRepository();
    await repository.createSubscription(subscription("sub-rt"));
    expect(await repository.getSubscription("sub-rt")).not.toHaveProperty("due_pk");
    expect(await rawItem(tableName, subscriptionKey("sub-rt"))).toMatchObject({
      pk: "SUB#sub-rt",
      sk: "SUB",
      due_pk: `due#20300201#${shardOf("sub-rt", 16)}`,
      due_sk: "2030-02-01T00:00:00.000Z#sub-rt",
    });

    await repository.updateSubscription("sub-rt", {
      expect: {},
      set: { status: "canceled", updated_at: "2030-02-02T00:00:00.000Z" },
      remove: ["next_charge_at"],
    });
    const raw = await rawItem(tableName, subscriptionKey("sub-rt"));
    expect(raw).not.toHaveProperty("due_pk");
    expect(raw).not.toHaveProperty("due_sk");
  });

  it("keys an open attempt in the open index, and drops it from the index once closed", async () => {
    const { repository, tableName } = await freshRepository();
    const key = { subscription_id: "sub-a", period: 3, attempt: 0 };
    const claimed = attempt(key);
    await repository.claimAttempt(claimed);
    expect(await rawItem(tableName, attemptKey(key))).toMatchObject({
      pk: "SUB#sub-a",
      sk: "CHARGE#0003#000",
      open_pk: `open#${shardOf("sub-a", 16)}`,
      open_sk: "2030-02-01T00:05:00.000Z#sub-a-3-0",
    });
    await repository.updateAttempt(key, {
      expect: { status: "pending", lease_until: claimed.lease_until },
      set: { status: "succeeded", transaction_id: "txn-1", updated_at: CREATED },
      remove: ["lease_until"],
    });
    expect(await rawItem(tableName, attemptKey(key))).not.toHaveProperty("open_pk");
  });

  it("keys tokens, refunds (with the by-subscription index) and de-duplication records by their own ids", async () => {
    const { repository, tableName } = await freshRepository();
    const future = new Date("2999-01-01T00:00:00.000Z");
    await repository.putToken(token("tok_1"));
    await repository.createRefund(refund("rf-1"));
    await repository.recordOnce("callback#ord-1#SALE", future);
    expect(await rawItem(tableName, tokenKey("tok_1"))).toMatchObject({ pk: "TOKEN#tok_1", sk: "TOKEN" });
    expect(await rawItem(tableName, refundKey("rf-1"))).toMatchObject({
      pk: "REFUND#rf-1",
      sk: "REFUND",
      sub_pk: "SUB#sub-r",
      sub_sk: "REFUND#2030-01-01T00:00:00.000Z#rf-1",
    });
    expect(await rawItem(tableName, dedupKey("callback#ord-1#SALE"))).toEqual({
      pk: "DEDUP#callback#ord-1#SALE",
      sk: "DEDUP",
      [TTL_ATTRIBUTE]: future.getTime() / 1000,
    });
  });

  it("hashes de-duplication keys over 200 UTF-8 bytes without colliding with a short key", async () => {
    const { repository, tableName } = await freshRepository();
    const future = new Date("2999-01-01T00:00:00.000Z");
    const long = `${"x".repeat(4999)}a`;
    const digest = createHash("sha256").update(long).digest("hex");
    expect(await repository.recordOnce(long, future)).toBe(true);
    expect(await repository.recordOnce(digest, future)).toBe(true);
    expect(await rawItem(tableName, { pk: `DEDUP#${digest}`, sk: "DEDUP#SHA256" })).toBeDefined();

    const twoHundredBytes = "é".repeat(100);
    expect(dedupKey(twoHundredBytes)).toEqual({ pk: `DEDUP#${twoHundredBytes}`, sk: "DEDUP" });
    expect(dedupKey(`${twoHundredBytes}é`).sk).toBe("DEDUP#SHA256");
  });
});

describe("the due index", () => {
  const UNTIL = at("2030-03-10T09:30:00.000Z");

  it("spreads one day's due entries over the shards and finds them all with a day of lookback", async () => {
    const { repository } = await freshRepository({ lookbackHours: 24 });
    const ids = Array.from({ length: 30 }, (_, i) => `sub-due-${i}`);
    for (const [i, id] of ids.entries()) {
      await repository.createSubscription(
        subscription(id, { next_charge_at: minutes("2030-03-09T12:00:00.000Z", i * 41) }),
      );
    }
    const { items } = await collect(repository.listDue(UNTIL));
    expect(items.map((entry) => entry.subscription_id).sort()).toEqual([...ids].sort());
    expect(new Set(ids.map((id) => shardOf(id, 16))).size).toBeGreaterThan(8);
  });

  it("moves the watermark forward past empty days, never backwards", async () => {
    const { repository, tableName, counting } = await countedRepository({ shards: 4, lookbackHours: 48 });
    const watermark = async () => (await rawItem(tableName, DUE_WATERMARK_KEY))?.due_from;
    await repository.createSubscription(
      subscription("sub-old", { next_charge_at: "2030-03-09T03:10:00.000Z" }),
    );
    counting.take();

    // First run: no watermark, 48 h of lookback (the days of Mar 8, 9 and 10); it stops at the oldest day that held
    // an entry.
    expect((await collect(repository.listDue(UNTIL))).items).toHaveLength(1);
    expect(counting.take().filter((name) => name === "QueryCommand")).toHaveLength(3 * 4);
    expect(await watermark()).toBe("2030-03-09T00:00:00.000Z");

    // Charged: due next month. The next run finds every day empty; the watermark stays one day behind its own.
    await repository.updateSubscription("sub-old", {
      expect: { period: 1 },
      set: { period: 2, next_charge_at: "2030-04-09T03:10:00.000Z", updated_at: "2030-03-10T09:05:00.000Z" },
    });
    expect((await collect(repository.listDue(UNTIL))).items).toHaveLength(0);
    expect(await watermark()).toBe("2030-03-09T00:00:00.000Z");

    // Runs now read only from the watermark: the days of Mar 9 and 10.
    counting.take();
    await collect(repository.listDue(UNTIL));
    expect(counting.take().filter((name) => name === "QueryCommand")).toHaveLength(2 * 4);

    // An earlier `until` reads nothing below the watermark and does not move it back.
    await collect(repository.listDue(at("2030-03-10T02:00:00.000Z")));
    expect(await watermark()).toBe("2030-03-09T00:00:00.000Z");

    // A day later the watermark moves past the empty day.
    await collect(repository.listDue(at("2030-03-11T09:30:00.000Z")));
    expect(await watermark()).toBe("2030-03-10T00:00:00.000Z");
  });

  it("never buckets a write below its own day, so a past next_charge_at stays visible above the watermark", async () => {
    const { repository, tableName } = await freshRepository({ lookbackHours: 2 });
    await collect(repository.listDue(UNTIL));
    expect((await rawItem(tableName, DUE_WATERMARK_KEY))?.due_from).toBe("2030-03-09T00:00:00.000Z");

    // Catching up: the next period started long ago. The write is bucketed at its updated_at day (Mar 10).
    await repository.createSubscription(
      subscription("sub-behind", { next_charge_at: "2030-03-01T00:00:00.000Z" }),
    );
    await repository.updateSubscription("sub-behind", {
      expect: {},
      set: { next_charge_at: "2030-02-01T00:00:00.000Z", updated_at: "2030-03-10T09:10:00.000Z" },
    });
    // Documented limit: a write that sets next_charge_at without updated_at is bucketed at next_charge_at's own
    // day; below the watermark no run reads it. The core always sets updated_at.
    await repository.createSubscription(
      subscription("sub-stale", { next_charge_at: "2030-03-12T00:00:00.000Z" }),
    );
    await repository.updateSubscription("sub-stale", {
      expect: {},
      set: { next_charge_at: "2030-03-05T00:00:00.000Z" },
    });

    const { items } = await collect(repository.listDue(UNTIL));
    expect(items.map((entry) => entry.subscription_id)).toEqual(["sub-behind"]);
  });
});

describe("requests", () => {
  const key = { subscription_id: "sub-req", period: 1, attempt: 0 };

  it("takes the existing attempt from the failed write when the service returns it (ALL_OLD)", async () => {
    const { repository, counting } = await countedRepository();
    const fromService = attempt(key, { status: "unknown", resmsg: "as returned by the service" });
    // dynalite ignores ReturnValuesOnConditionCheckFailure; add the item the way AWS does.
    counting.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) error.Item = marshall(fromService);
          throw error;
        }
      },
      { step: "initialize", name: "returnOldItem" },
    );
    await repository.claimAttempt(attempt(key));
    counting.take();
    expect(await repository.claimAttempt(attempt(key))).toEqual({ claimed: false, existing: fromService });
    expect(counting.take()).toEqual(["PutItemCommand"]);
  });

  it("uses one write per claim and update, and never scans", async () => {
    const { repository, requests } = await countedRepository({ lookbackHours: 2 });
    const claimed = attempt(key);

    expect(await requests(() => repository.createSubscription(subscription("sub-req")))).toEqual([
      "PutItemCommand",
    ]);
    expect(await requests(() => repository.claimAttempt(claimed))).toEqual(["PutItemCommand"]);
    expect(await requests(() => repository.claimAttempt(claimed))).toEqual(LOST_CLAIM_REQUESTS);
    const close = () =>
      repository.updateAttempt(claimed, {
        expect: { status: "pending", lease_until: claimed.lease_until },
        set: { status: "succeeded", updated_at: CREATED },
        remove: ["lease_until"],
      });
    expect(await requests(close)).toEqual(["UpdateItemCommand"]);
    const advance = () =>
      repository.updateSubscription("sub-req", {
        expect: { period: 1, attempt: 0 },
        set: { period: 2, next_charge_at: "2030-03-01T00:00:00.000Z", updated_at: CREATED },
        remove: ["dunning"],
      });
    expect(await requests(advance)).toEqual(["UpdateItemCommand"]);

    const listDue = await requests(() => collect(repository.listDue(at("2030-03-01T00:30:00.000Z"))));
    expect(listDue).not.toContain("ScanCommand");
    expect(new Set(listDue)).toEqual(new Set(["GetItemCommand", "QueryCommand", "PutItemCommand"]));
  });

  it("uses one write per token, refund and record write, one read per get, and a list reads what its index lists", async () => {
    const { repository, requests } = await countedRepository();
    expect(await requests(() => repository.putToken(token("tok_r")))).toEqual(["PutItemCommand"]);
    expect(await requests(() => repository.putToken(token("tok_r")))).toEqual(["PutItemCommand"]);
    expect(await requests(() => repository.getToken("tok_r"))).toEqual(["GetItemCommand"]);
    const revoke = () =>
      repository.updateToken("tok_r", { expect: { status: "active" }, set: { status: "revoked" } });
    expect(await requests(revoke)).toEqual(["UpdateItemCommand"]);

    expect(await requests(() => repository.createRefund(refund("rf-r")))).toEqual(["PutItemCommand"]);
    expect(await requests(() => repository.createRefund(refund("rf-r")))).toEqual(LOST_CLAIM_REQUESTS);
    const settle = () =>
      repository.updateRefund("rf-r", { expect: { status: "pending" }, set: { status: "unknown" } });
    expect(await requests(settle)).toEqual(["UpdateItemCommand"]);
    // The index holds keys only: the refunds it lists are read in one batch.
    expect(await requests(() => repository.listRefunds("sub-r"))).toEqual([
      "QueryCommand",
      "BatchGetItemCommand",
    ]);
    expect(await requests(() => repository.listRefunds("sub-none"))).toEqual(["QueryCommand"]);

    const charge = attempt({ subscription_id: "sub-r", period: 1, attempt: 0 }, { status: "succeeded" });
    await repository.claimAttempt(charge);
    const refundPart = () =>
      repository.updateAttempt(charge, {
        expect: { status: "succeeded", lease_until: charge.lease_until, refund_revision: 0 },
        set: { refunded_amount: "5.00", refunds: { "rf-r": "5.00" }, refund_revision: 1 },
      });
    expect(await requests(refundPart)).toEqual(["UpdateItemCommand"]);

    const future = new Date("2999-01-01T00:00:00.000Z");
    expect(await requests(() => repository.recordOnce("k-r", future))).toEqual(["PutItemCommand"]);
    expect(await requests(() => repository.recordOnce("k-r", future))).toEqual(["PutItemCommand"]);
  });
});

describe("clients", () => {
  it("reaches the endpoint given by AWS_ENDPOINT_URL_DYNAMODB when none is passed", async () => {
    const tableName = await db.createBillingTable();
    const saved = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = db.endpoint;
    const client = createDynamoDbDocumentClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    try {
      const id = `sub-env-${randomUUID()}`;
      expect(
        await createDynamoDbBillingRepository({ client, tableName }).createSubscription(subscription(id)),
      ).toBe(true);
      expect(await rawItem(tableName, subscriptionKey(id))).toMatchObject({ subscription_id: id });
    } finally {
      client.destroy();
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = saved;
    }
  });

  it("refuses a document client that would write undefined", () => {
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: db.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    );
    expect(() => createDynamoDbBillingRepository({ client, tableName: "billing" })).toThrow(
      /removeUndefinedValues/,
    );
    client.destroy();
  });
});
