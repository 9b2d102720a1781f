import { createHash } from "node:crypto";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dedupKey, refundKey, TTL_ATTRIBUTE, tokenKey } from "../../../functions/adapters/billing-table";
import {
  createDynamoDbBillingRepository,
  type DynamoDbBillingRepositoryOptions,
} from "../../../functions/adapters/dynamodb-billing-repository";
import type { ChargeAttempt, RefundRecord, TokenRecord } from "../../../functions/core/model";
import { orderIdFor } from "../../../functions/core/order-id";
import type { BillingRepository } from "../../../functions/core/ports";
import { type Dynalite, startDynalite } from "../../../local/dynamodb-emulator";
import { countingClient } from "../../support/counting-client";

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(() => db.close());

const CREATED = "2030-01-01T00:00:00.000Z";
const LATER = "2030-01-02T00:00:00.000Z";

function token(id: string, overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    token_id: id,
    subscription_id: "sub-t",
    card: { first4: "4111", last4: "1111" },
    expiry: "203012",
    status: "active",
    created_at: CREATED,
    updated_at: CREATED,
    ...overrides,
  };
}

function refund(id: string, overrides: Partial<RefundRecord> = {}): RefundRecord {
  return {
    refund_id: id,
    subscription_id: "sub-r",
    order_id: "sub-r-1-0",
    period: 1,
    attempt: 0,
    amount: "5.00",
    currency: "USD",
    reason: "requested_by_customer",
    status: "pending",
    created_at: CREATED,
    updated_at: CREATED,
    ...overrides,
  };
}

const chargeKey = { subscription_id: "sub-r", period: 1, attempt: 0 };
const charge: ChargeAttempt = {
  ...chargeKey,
  order_id: orderIdFor(chargeKey),
  amount: "19.90",
  currency: "USD",
  status: "succeeded",
  transaction_id: "txn-1",
  created_at: CREATED,
  updated_at: CREATED,
};

async function freshRepository(
  options: Partial<DynamoDbBillingRepositoryOptions> = {},
): Promise<{ repository: BillingRepository; tableName: string }> {
  const tableName = await db.createBillingTable();
  return {
    repository: createDynamoDbBillingRepository({ client: db.client, tableName, ...options }),
    tableName,
  };
}

async function rawItem(tableName: string, key: Record<string, string>) {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

describe("tokens", () => {
  it("round-trips a token under its own key, without the key attributes", async () => {
    const { repository, tableName } = await freshRepository();
    const stored = token("tok_1", { expiry: undefined });
    await repository.putToken(stored);
    expect(await repository.getToken("tok_1")).toEqual(stored);
    expect(await rawItem(tableName, tokenKey("tok_1"))).toMatchObject({ pk: "TOKEN#tok_1", sk: "TOKEN" });
    expect(await repository.getToken("tok_none")).toBeUndefined();
  });

  it("stores the same token again harmlessly, and never revives a revoked one", async () => {
    const { repository } = await freshRepository();
    await repository.putToken(token("tok_2"));
    await repository.putToken(token("tok_2"));
    expect(await repository.getToken("tok_2")).toEqual(token("tok_2"));

    const revoked = { status: "revoked" as const, updated_at: LATER };
    expect(await repository.updateToken("tok_2", { expect: { status: "active" }, set: revoked })).toBe(true);
    await repository.putToken(token("tok_2"));
    expect(await repository.getToken("tok_2")).toEqual({ ...token("tok_2"), ...revoked });
  });

  it("updates a token only with the expected status", async () => {
    const { repository } = await freshRepository();
    await repository.putToken(token("tok_3"));
    const expired = { status: "expired" as const, updated_at: LATER };

    expect(await repository.updateToken("tok_3", { expect: { status: "revoked" }, set: expired })).toBe(
      false,
    );
    expect(await repository.getToken("tok_3")).toEqual(token("tok_3"));
    expect(await repository.updateToken("tok_3", { expect: { status: "active" }, set: expired })).toBe(true);
    expect(await repository.getToken("tok_3")).toEqual({ ...token("tok_3"), ...expired });
    expect(await repository.updateToken("tok_none", { expect: { status: "active" }, set: expired })).toBe(
      false,
    );
  });
});

describe("refunds", () => {
  it("creates a refund once; a second create gets the existing refund, whatever its subscription", async () => {
    const { repository, tableName } = await freshRepository();
    const first = refund("rf-1");
    expect(await repository.createRefund(first)).toEqual({ created: true });
    expect(await repository.createRefund(refund("rf-1", { amount: "9.00" }))).toEqual({
      created: false,
      existing: first,
    });
    expect(await repository.createRefund(refund("rf-1", { subscription_id: "sub-other" }))).toEqual({
      created: false,
      existing: first,
    });
    expect(await repository.listRefunds("sub-other")).toEqual([]);
    expect(await rawItem(tableName, refundKey("rf-1"))).toMatchObject({
      pk: "REFUND#rf-1",
      sk: "REFUND",
      sub_pk: "SUB#sub-r",
      sub_sk: "REFUND#2030-01-01T00:00:00.000Z#rf-1",
    });
  });

  it("updates a refund only with the expected status", async () => {
    const { repository } = await freshRepository();
    await repository.createRefund(refund("rf-2"));
    const done = {
      status: "succeeded" as const,
      refund_transaction_id: "txn-refund-1",
      rescode: "0000",
      updated_at: LATER,
    };

    expect(await repository.updateRefund("rf-2", { expect: { status: "unknown" }, set: done })).toBe(false);
    expect(await repository.listRefunds("sub-r")).toEqual([refund("rf-2")]);
    expect(await repository.updateRefund("rf-2", { expect: { status: "pending" }, set: done })).toBe(true);
    expect(await repository.listRefunds("sub-r")).toEqual([{ ...refund("rf-2"), ...done }]);
    expect(await repository.updateRefund("rf-none", { expect: { status: "pending" }, set: done })).toBe(
      false,
    );
  });

  it("lists only the subscription's refunds, oldest first, then by id", async () => {
    const { repository } = await freshRepository();
    const at = (hour: number) => `2030-01-01T${String(hour).padStart(2, "0")}:00:00.000Z`;
    const mine = [
      refund("rf-b", { created_at: at(1) }),
      refund("rf-c", { created_at: at(1) }),
      // 03:00Z written with an offset: sorted by the instant, not the text.
      refund("rf-a", { created_at: "2030-01-01T12:00:00+09:00" }),
      refund("rf-z", { created_at: at(10) }),
    ];
    for (const r of [...mine].reverse()) await repository.createRefund(r);
    await repository.createRefund(refund("rf-other", { subscription_id: "sub-r2", created_at: at(0) }));
    await repository.claimAttempt(charge);

    expect(await repository.listRefunds("sub-r")).toEqual(mine);
    expect((await repository.listRefunds("sub-r2")).map((r) => r.refund_id)).toEqual(["rf-other"]);
    expect(await repository.listRefunds("sub-none")).toEqual([]);
  });
});

describe("refunded_amount on charge attempts", () => {
  it("serialises refunds: '0' matches a never-refunded attempt, a stale amount fails", async () => {
    const { repository } = await freshRepository();
    await repository.claimAttempt(charge);
    const refunded = (amount: string) => ({ refunded_amount: amount, updated_at: LATER });
    const update = (expected: string, amount: string) =>
      repository.updateAttempt(chargeKey, {
        expect: { status: "succeeded", refunded_amount: expected },
        set: refunded(amount),
      });

    expect(await update("5.00", "10.00")).toBe(false);
    expect(await update("0", "5.00")).toBe(true);
    expect(await repository.getAttempt(chargeKey)).toEqual({ ...charge, ...refunded("5.00") });
    expect(await update("0", "10.00")).toBe(false);
    expect(await update("5.00", "19.90")).toBe(true);
    expect(await update("5.00", "24.90")).toBe(false);
    expect((await repository.getAttempt(chargeKey))?.refunded_amount).toBe("19.90");
  });

  it("'0' also matches an attempt that stores refunded_amount 0, and the status must still hold", async () => {
    const { repository } = await freshRepository();
    await repository.claimAttempt({ ...charge, refunded_amount: "0" });
    const set = { refunded_amount: "1.00", updated_at: LATER };
    expect(
      await repository.updateAttempt(chargeKey, {
        expect: { status: "declined", refunded_amount: "0" },
        set,
      }),
    ).toBe(false);
    expect(
      await repository.updateAttempt(chargeKey, {
        expect: { status: "succeeded", refunded_amount: "0" },
        set,
      }),
    ).toBe(true);
  });
});

describe("recordOnce", () => {
  const future = new Date("2999-01-01T00:00:00.000Z");

  it("is true the first time a key is seen and false after, with the TTL attribute in epoch seconds", async () => {
    const { repository, tableName } = await freshRepository();
    expect(await repository.recordOnce("callback#ord-1#SALE", future)).toBe(true);
    expect(await repository.recordOnce("callback#ord-1#SALE", future)).toBe(false);
    expect(await repository.recordOnce("callback#ord-1#REFUND", future)).toBe(true);
    expect(await rawItem(tableName, dedupKey("callback#ord-1#SALE"))).toEqual({
      pk: "DEDUP#callback#ord-1#SALE",
      sk: "DEDUP",
      [TTL_ATTRIBUTE]: future.getTime() / 1000,
    });
  });

  it("treats an expired record that TTL has not deleted yet as absent", async () => {
    const { repository } = await freshRepository();
    const past = new Date(Date.now() - 3_600_000);
    expect(await repository.recordOnce("webhook-1", past)).toBe(true);
    expect(await repository.recordOnce("webhook-1", future)).toBe(true);
    expect(await repository.recordOnce("webhook-1", future)).toBe(false);
  });

  it("judges expiry by the given clock and never before expiresAt", async () => {
    let now = new Date("2030-01-01T00:00:00.000Z");
    const { repository } = await freshRepository({ clock: { now: () => now } });
    const expiresAt = new Date("2030-01-01T00:00:10.000Z");
    expect(await repository.recordOnce("k", expiresAt)).toBe(true);
    now = new Date("2030-01-01T00:00:10.500Z");
    expect(await repository.recordOnce("k", expiresAt)).toBe(false);
    now = new Date("2030-01-01T00:00:11.000Z");
    expect(await repository.recordOnce("k", expiresAt)).toBe(true);
  });

  it("takes keys of any length and characters, hashing long ones without colliding with short ones", async () => {
    const { repository, tableName } = await freshRepository();
    const long = `${"x".repeat(4999)}a`;
    const digest = createHash("sha256").update(long).digest("hex");
    expect(await repository.recordOnce(long, future)).toBe(true);
    expect(await repository.recordOnce(long, future)).toBe(false);
    expect(await repository.recordOnce(`${"x".repeat(4999)}b`, future)).toBe(true);
    expect(await repository.recordOnce(digest, future)).toBe(true);
    expect(await rawItem(tableName, { pk: `DEDUP#${digest}`, sk: "DEDUP#SHA256" })).toBeDefined();

    // 200 UTF-8 bytes are stored as they are, 202 are hashed.
    const twoHundredBytes = "é".repeat(100);
    expect(dedupKey(twoHundredBytes)).toEqual({ pk: `DEDUP#${twoHundredBytes}`, sk: "DEDUP" });
    expect(dedupKey(`${twoHundredBytes}é`).sk).toBe("DEDUP#SHA256");
    for (const key of [twoHundredBytes, `${twoHundredBytes}é`, "", "a b#c\n/☃", "🎉".repeat(60)]) {
      expect(await repository.recordOnce(key, future)).toBe(true);
      expect(await repository.recordOnce(key, future)).toBe(false);
    }
  });

  it("refuses an invalid expiry", async () => {
    const { repository } = await freshRepository();
    await expect(repository.recordOnce("k", new Date(Number.NaN))).rejects.toThrow(RangeError);
  });
});

describe("requests", () => {
  it("uses one write per create, update and record, one read per get and list", async () => {
    const counting = countingClient(db.endpoint);
    const tableName = await db.createBillingTable();
    const repository = createDynamoDbBillingRepository({ client: counting.client, tableName });
    const request = async (call: () => Promise<unknown>) => {
      counting.take();
      await call();
      return counting.take();
    };

    expect(await request(() => repository.putToken(token("tok_r")))).toEqual(["PutItemCommand"]);
    expect(await request(() => repository.putToken(token("tok_r")))).toEqual(["PutItemCommand"]);
    expect(await request(() => repository.getToken("tok_r"))).toEqual(["GetItemCommand"]);
    expect(
      await request(() =>
        repository.updateToken("tok_r", { expect: { status: "active" }, set: { status: "revoked" } }),
      ),
    ).toEqual(["UpdateItemCommand"]);

    expect(await request(() => repository.createRefund(refund("rf-r")))).toEqual(["PutItemCommand"]);
    // dynalite does not return the item in the way (AWS does), so a conflict costs one GetItem here.
    expect(await request(() => repository.createRefund(refund("rf-r")))).toEqual([
      "PutItemCommand",
      "GetItemCommand",
    ]);
    expect(
      await request(() =>
        repository.updateRefund("rf-r", { expect: { status: "pending" }, set: { status: "unknown" } }),
      ),
    ).toEqual(["UpdateItemCommand"]);
    expect(await request(() => repository.listRefunds("sub-r"))).toEqual(["QueryCommand"]);

    await repository.claimAttempt(charge);
    expect(
      await request(() =>
        repository.updateAttempt(chargeKey, {
          expect: { status: "succeeded", refunded_amount: "0" },
          set: { refunded_amount: "5.00" },
        }),
      ),
    ).toEqual(["UpdateItemCommand"]);

    const future = new Date("2999-01-01T00:00:00.000Z");
    expect(await request(() => repository.recordOnce("k", future))).toEqual(["PutItemCommand"]);
    expect(await request(() => repository.recordOnce("k", future))).toEqual(["PutItemCommand"]);
    counting.client.destroy();
  });
});
