import { randomUUID } from "node:crypto";
import { ConditionalCheckFailedException, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attemptKey,
  DUE_WATERMARK_KEY,
  shardOf,
  subscriptionKey,
} from "../../../functions/adapters/billing-table";
import {
  createDynamoDbBillingRepository,
  type DynamoDbBillingRepositoryOptions,
} from "../../../functions/adapters/dynamodb-billing-repository";
import { createDynamoDbDocumentClient } from "../../../functions/adapters/dynamodb-client";
import type { AttemptKey, ChargeAttempt, Subscription } from "../../../functions/core/model";
import { orderIdFor } from "../../../functions/core/order-id";
import type { BillingRepository } from "../../../functions/core/ports";
import {
  type Dynalite,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startDynalite,
} from "../../../local/dynamodb-emulator";
import { countingClient } from "../../support/counting-client";

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(() => db.close());

const CREATED = "2030-01-01T00:00:00.000Z";
const at = (iso: string) => new Date(iso);
const minutes = (iso: string, delta: number) => new Date(Date.parse(iso) + delta * 60_000).toISOString();

function subscription(id: string, overrides: Partial<Subscription> = {}): Subscription {
  return {
    subscription_id: id,
    status: "active",
    billing_mode: "token",
    customer: { name: "Ada Lovelace", email: "ada@example.com" },
    plan: { amount: "19.90", currency: "USD", interval_months: 1 },
    anchor_at: CREATED,
    period: 1,
    attempt: 0,
    next_charge_at: "2030-02-01T00:00:00.000Z",
    token_id: "tok_test_1",
    card: { first4: "4111", last4: "1111" },
    created_at: CREATED,
    updated_at: CREATED,
    ...overrides,
  };
}

function attempt(key: AttemptKey, overrides: Partial<ChargeAttempt> = {}): ChargeAttempt {
  return {
    ...key,
    order_id: orderIdFor(key),
    amount: "19.90",
    currency: "USD",
    status: "pending",
    lease_until: "2030-02-01T00:05:00.000Z",
    created_at: "2030-02-01T00:00:00.000Z",
    updated_at: "2030-02-01T00:00:00.000Z",
    ...overrides,
  };
}

async function freshRepository(
  options: Partial<DynamoDbBillingRepositoryOptions> = {},
): Promise<{ repository: BillingRepository; tableName: string }> {
  const tableName = await db.createBillingTable();
  const repository = createDynamoDbBillingRepository({ client: db.client, tableName, ...options });
  return { repository, tableName };
}

async function rawItem(tableName: string, key: Record<string, string>) {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

async function collect<T>(pages: AsyncIterable<readonly T[]>): Promise<{ pages: T[][]; items: T[] }> {
  const all: T[][] = [];
  for await (const page of pages) all.push([...page]);
  return { pages: all, items: all.flat() };
}

describe("subscriptions", () => {
  it("round-trips a subscription through the schema, without the key attributes", async () => {
    const { repository, tableName } = await freshRepository();
    const stored = subscription("sub-rt", {
      customer: { name: "Ada", email: "ada@example.com", phone: undefined },
    });
    expect(await repository.createSubscription(stored)).toBe(true);

    const read = await repository.getSubscription("sub-rt");
    expect(read).toEqual(stored);
    expect(Object.keys(read?.customer ?? {})).not.toContain("phone");
    expect(Object.keys(read ?? {})).not.toContain("due_pk");
    expect(await rawItem(tableName, subscriptionKey("sub-rt"))).toMatchObject({
      pk: "SUB#sub-rt",
      sk: "SUB",
      due_pk: `due#20300201#${shardOf("sub-rt", 16)}`,
      due_sk: "2030-02-01T00:00:00.000Z#sub-rt",
    });
    expect(await repository.getSubscription("sub-none")).toBeUndefined();
  });

  it("refuses to create a subscription twice and keeps the first", async () => {
    const { repository } = await freshRepository();
    expect(await repository.createSubscription(subscription("sub-twice"))).toBe(true);
    expect(await repository.createSubscription(subscription("sub-twice", { period: 7 }))).toBe(false);
    expect((await repository.getSubscription("sub-twice"))?.period).toBe(1);
  });

  it("applies an update only when every expected field still holds", async () => {
    const { repository } = await freshRepository();
    await repository.createSubscription(subscription("sub-cas"));
    const before = await repository.getSubscription("sub-cas");

    const unmet = await repository.updateSubscription("sub-cas", {
      expect: { period: 1, attempt: 3 },
      set: { attempt: 4, status: "past_due", updated_at: "2030-02-01T00:00:00.000Z" },
    });
    expect(unmet).toBe(false);
    expect(await repository.getSubscription("sub-cas")).toEqual(before);

    const met = await repository.updateSubscription("sub-cas", {
      expect: { period: 1, attempt: 0, status: "active" },
      set: {
        period: 2,
        attempt: 0,
        dunning: { step: 1, reason: "declined", rescode: undefined, since: "2030-02-01T00:00:00.000Z" },
        updated_at: "2030-02-01T00:00:00.000Z",
      },
    });
    expect(met).toBe(true);
    expect(await repository.getSubscription("sub-cas")).toEqual({
      ...before,
      period: 2,
      dunning: { step: 1, reason: "declined", since: "2030-02-01T00:00:00.000Z" },
      updated_at: "2030-02-01T00:00:00.000Z",
    });
    expect(
      await repository.updateSubscription("sub-missing", { expect: {}, set: { updated_at: CREATED } }),
    ).toBe(false);
  });

  it("removes fields, and the due index keys with next_charge_at", async () => {
    const { repository, tableName } = await freshRepository();
    await repository.createSubscription(
      subscription("sub-rm", {
        status: "past_due",
        status_reason: "payment_declined",
        dunning: { step: 2, reason: "declined", since: CREATED },
      }),
    );
    const removed = await repository.updateSubscription("sub-rm", {
      expect: { status: "past_due" },
      set: { status: "canceled", updated_at: "2030-02-02T00:00:00.000Z" },
      remove: ["dunning", "status_reason", "next_charge_at"],
    });
    expect(removed).toBe(true);
    const read = await repository.getSubscription("sub-rm");
    expect(read?.status).toBe("canceled");
    expect(read).not.toHaveProperty("dunning");
    expect(read).not.toHaveProperty("status_reason");
    expect(read).not.toHaveProperty("next_charge_at");
    const raw = await rawItem(tableName, subscriptionKey("sub-rm"));
    expect(raw).not.toHaveProperty("due_pk");
    expect(raw).not.toHaveProperty("due_sk");
  });
});

describe("listDue", () => {
  const UNTIL = at("2030-03-10T09:30:00.000Z");

  it("lists every due subscription exactly once with its period, across hours and shards", async () => {
    const { repository } = await freshRepository({ lookbackHours: 24 });
    const due = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const id = `sub-due-${i}`;
      // Hours 00..09 of the day, plus one in the lookback window the day before.
      const nextChargeAt = i === 0 ? "2030-03-09T15:00:00.000Z" : minutes("2030-03-10T00:00:00.000Z", i * 19);
      await repository.createSubscription(subscription(id, { period: i, next_charge_at: nextChargeAt }));
      due.set(id, i);
    }
    // The same instant as 09:00Z written with an offset: index keys are UTC whatever the record says.
    await repository.createSubscription(
      subscription("sub-offset", { next_charge_at: "2030-03-10T18:00:00+09:00" }),
    );
    due.set("sub-offset", 1);
    await repository.createSubscription(
      subscription("sub-future-1", { next_charge_at: "2030-03-10T09:30:00.001Z" }),
    );
    await repository.createSubscription(
      subscription("sub-future-2", { next_charge_at: "2030-03-11T09:00:00.000Z" }),
    );
    await repository.createSubscription(
      subscription("sub-canceled", { next_charge_at: "2030-03-10T01:00:00.000Z" }),
    );
    await repository.updateSubscription("sub-canceled", {
      expect: {},
      set: { status: "canceled", updated_at: CREATED },
      remove: ["next_charge_at"],
    });

    const { items } = await collect(repository.listDue(UNTIL));
    expect(items).toHaveLength(due.size);
    expect(new Map(items.map((entry) => [entry.subscription_id, entry.period]))).toEqual(due);
    expect(new Set([...due.keys()].map((id) => shardOf(id, 16))).size).toBeGreaterThan(8);
  });

  it("pages through more entries than one page holds", async () => {
    const { repository } = await freshRepository({ lookbackHours: 2, pageSize: 3 });
    const ids = Array.from({ length: 25 }, (_, i) => `sub-page-${i}`);
    for (const id of ids) {
      await repository.createSubscription(subscription(id, { next_charge_at: "2030-03-10T09:00:00.000Z" }));
    }
    const { pages, items } = await collect(repository.listDue(UNTIL));
    expect(pages.every((page) => page.length >= 1 && page.length <= 3)).toBe(true);
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(25 / 3));
    expect(items.map((entry) => entry.subscription_id).sort()).toEqual([...ids].sort());
  });

  it("moves the watermark forward past empty days, never backwards", async () => {
    const counting = countingClient(db.endpoint);
    const tableName = await db.createBillingTable();
    const repository = createDynamoDbBillingRepository({
      client: counting.client,
      tableName,
      shards: 4,
      lookbackHours: 48,
    });
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

describe("charge attempts", () => {
  const key = { subscription_id: "sub-a", period: 3, attempt: 0 };

  it("claims an attempt once; a second claim gets the existing attempt", async () => {
    const { repository, tableName } = await freshRepository();
    const first = attempt(key);
    expect(await repository.claimAttempt(first)).toEqual({ claimed: true });
    const second = await repository.claimAttempt(attempt(key, { lease_until: "2030-02-01T01:00:00.000Z" }));
    expect(second).toEqual({ claimed: false, existing: first });
    expect(await repository.getAttempt(key)).toEqual(first);
    expect(await rawItem(tableName, attemptKey(key))).toMatchObject({
      pk: "SUB#sub-a",
      sk: "CHARGE#0003#000",
      open_pk: `open#${shardOf("sub-a", 16)}`,
      open_sk: "2030-02-01T00:05:00.000Z#sub-a-3-0",
    });
  });

  it("takes the existing attempt from the failed write when the service returns it (ALL_OLD)", async () => {
    const counting = countingClient(db.endpoint);
    const tableName = await db.createBillingTable();
    const repository = createDynamoDbBillingRepository({ client: counting.client, tableName });
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

  it("updates an attempt only with the expected status and lease", async () => {
    const { repository } = await freshRepository();
    const claimed = attempt(key);
    await repository.claimAttempt(claimed);
    const set = { status: "unknown" as const, lease_until: "2030-02-01T00:10:00.000Z", updated_at: CREATED };

    expect(
      await repository.updateAttempt(key, {
        expect: { status: "retry", lease_until: claimed.lease_until },
        set,
      }),
    ).toBe(false);
    expect(
      await repository.updateAttempt(key, {
        expect: { status: "pending", lease_until: "2030-02-01T00:06:00.000Z" },
        set,
      }),
    ).toBe(false);
    expect(await repository.updateAttempt(key, { expect: { status: "pending" }, set })).toBe(false);
    expect(await repository.getAttempt(key)).toEqual(claimed);

    expect(
      await repository.updateAttempt(key, {
        expect: { status: "pending", lease_until: claimed.lease_until },
        set,
      }),
    ).toBe(true);
    expect(await repository.getAttempt(key)).toEqual({ ...claimed, ...set });
    expect(
      await repository.updateAttempt({ ...key, attempt: 9 }, { expect: { status: "pending" }, set }),
    ).toBe(false);
  });

  it("lists open attempts whose lease ended, and drops them from the index once closed", async () => {
    const { repository, tableName } = await freshRepository({ pageSize: 2 });
    const cutoff = "2030-02-01T12:00:00.000Z";
    const expired: ChargeAttempt[] = [];
    for (let i = 0; i < 12; i++) {
      const expiredAttempt = attempt(
        { subscription_id: `sub-open-${i}`, period: 1, attempt: 0 },
        {
          status: i % 3 === 0 ? "retry" : i % 3 === 1 ? "unknown" : "pending",
          lease_until: minutes(cutoff, -1 - i),
        },
      );
      await repository.claimAttempt(expiredAttempt);
      expired.push(expiredAttempt);
    }
    await repository.claimAttempt(
      attempt({ ...key, subscription_id: "sub-later" }, { lease_until: minutes(cutoff, 1) }),
    );
    await repository.claimAttempt(
      attempt({ ...key, subscription_id: "sub-at-cutoff" }, { lease_until: cutoff }),
    );
    await repository.claimAttempt(
      attempt({ ...key, subscription_id: "sub-closed" }, { status: "succeeded", lease_until: undefined }),
    );
    const listed = async () =>
      (await collect(repository.listOpenAttempts(at(cutoff)))).items.map((a) => a.subscription_id).sort();
    expect(await listed()).toEqual(expired.map((a) => a.subscription_id).sort());
    expect((await collect(repository.listOpenAttempts(at(cutoff)))).items).toEqual(
      expect.arrayContaining(expired),
    );

    const [toClose, toExtend] = expired;
    if (!toClose || !toExtend) throw new Error("fixture");
    const closed = await repository.updateAttempt(toClose, {
      expect: { status: toClose.status, lease_until: toClose.lease_until },
      set: { status: "succeeded", transaction_id: "txn-1", updated_at: cutoff },
      remove: ["lease_until"],
    });
    expect(closed).toBe(true);
    expect(await rawItem(tableName, attemptKey(toClose))).not.toHaveProperty("open_pk");
    await repository.updateAttempt(toExtend, {
      expect: { status: toExtend.status, lease_until: toExtend.lease_until },
      set: { status: "pending", lease_until: minutes(cutoff, 5), updated_at: cutoff },
    });
    const remaining = expired
      .slice(2)
      .map((a) => a.subscription_id)
      .sort();
    expect(await listed()).toEqual(remaining);
    expect((await collect(repository.listOpenAttempts(at(minutes(cutoff, 6))))).items).toHaveLength(
      remaining.length + 3,
    );
  });

  it("lists a subscription's ledger oldest first across periods ≥ 10 and attempts", async () => {
    const { repository } = await freshRepository();
    await repository.createSubscription(subscription("sub-ledger"));
    const keys: AttemptKey[] = [];
    for (let period = 0; period <= 11; period++) {
      for (let n = 0; n <= 2; n++) keys.push({ subscription_id: "sub-ledger", period, attempt: n });
    }
    // Written out of order (17 is coprime with 36, so this visits every key once).
    const shuffled = keys.map((_, i) => keys[(i * 17) % keys.length]).filter((k) => k !== undefined);
    for (const k of shuffled)
      await repository.claimAttempt(attempt(k, { status: "declined", lease_until: undefined }));
    await repository.claimAttempt(attempt({ subscription_id: "sub-ledger-2", period: 0, attempt: 0 }));

    const ledger = await repository.listAttempts("sub-ledger");
    expect(ledger.map((a) => [a.period, a.attempt])).toEqual(keys.map((k) => [k.period, k.attempt]));
  });
});

describe("requests", () => {
  it("uses one write per claim and update, and never scans", async () => {
    const counting = countingClient(db.endpoint);
    const tableName = await db.createBillingTable();
    const repository = createDynamoDbBillingRepository({
      client: counting.client,
      tableName,
      lookbackHours: 2,
    });
    const claimed = attempt({ subscription_id: "sub-req", period: 1, attempt: 0 });

    await repository.createSubscription(subscription("sub-req"));
    expect(counting.take()).toEqual(["PutItemCommand"]);
    await repository.claimAttempt(claimed);
    expect(counting.take()).toEqual(["PutItemCommand"]);
    await repository.claimAttempt(claimed);
    expect(counting.take()).toEqual(["PutItemCommand", "GetItemCommand"]);
    await repository.updateAttempt(claimed, {
      expect: { status: "pending", lease_until: claimed.lease_until },
      set: { status: "succeeded", updated_at: CREATED },
      remove: ["lease_until"],
    });
    expect(counting.take()).toEqual(["UpdateItemCommand"]);
    await repository.updateSubscription("sub-req", {
      expect: { period: 1, attempt: 0 },
      set: { period: 2, next_charge_at: "2030-03-01T00:00:00.000Z", updated_at: CREATED },
      remove: ["dunning"],
    });
    expect(counting.take()).toEqual(["UpdateItemCommand"]);

    await collect(repository.listDue(at("2030-03-01T00:30:00.000Z")));
    const listDue = counting.take();
    expect(listDue).not.toContain("ScanCommand");
    expect(new Set(listDue)).toEqual(new Set(["GetItemCommand", "QueryCommand", "PutItemCommand"]));
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
