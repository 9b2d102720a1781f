import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDynamoDbIdempotencyStore,
  IDEMPOTENCY_PARTITION,
} from "../../../functions/adapters/dynamodb/dynamodb-idempotency-store";
import { TTL_ATTRIBUTE } from "../../../functions/adapters/table/billing-table";
import type { ApiResponse } from "../../../functions/api/errors";
import type { IdempotencyStore } from "../../../functions/core/ports/idempotency-store";
import { LOCAL_CREDENTIALS, LOCAL_REGION, type LocalDynamoDb } from "../../../local/aws/dynamodb-emulator";
import { startTestDynamoDb } from "../../support/test-dynamodb";

let db: LocalDynamoDb;
let client: DynamoDBClient;
let tableName: string;
let store: IdempotencyStore;

beforeAll(async () => {
  db = await startTestDynamoDb();
  tableName = await db.createBillingTable();
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  store = createDynamoDbIdempotencyStore({ client, tableName });
});
afterAll(async () => {
  client.destroy();
  await db.close();
});

const answer = (body: unknown, status = 201): ApiResponse => ({ status, headers: {}, body });

/** Work that counts its runs. */
function counted(response: ApiResponse) {
  let runs = 0;
  return {
    runs: () => runs,
    work: async () => {
      runs += 1;
      return response;
    },
  };
}

describe("the Powertools idempotency store on the billing table", () => {
  it("runs once and answers the kept response to the same key and request", async () => {
    const work = counted(answer({ charge_id: "c-1", note: undefined }));
    const request = { key: "key-once", fingerprint: "f1" };

    const first = await store.run(request, work.work);
    const second = await store.run(request, work.work);

    expect(first).toEqual({ kind: "completed", response: answer({ charge_id: "c-1" }), replayed: false });
    expect(second).toEqual({ kind: "completed", response: answer({ charge_id: "c-1" }), replayed: true });
    expect(work.runs()).toBe(1);
  });

  it("refuses the same key with another request, and keeps the first response", async () => {
    const work = counted(answer({ id: 1 }));
    await store.run({ key: "key-mismatch", fingerprint: "f1" }, work.work);

    expect(await store.run({ key: "key-mismatch", fingerprint: "f2" }, work.work)).toEqual({
      kind: "mismatch",
    });
    expect(await store.run({ key: "key-mismatch", fingerprint: "f1" }, work.work)).toMatchObject({
      kind: "completed",
      replayed: true,
    });
    expect(work.runs()).toBe(1);
  });

  it("lets one of concurrent duplicates run; the others are told it is in progress", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let runs = 0;
    const slow = async () => {
      runs += 1;
      started();
      await gate;
      return answer({ id: "slow" });
    };
    const request = { key: "key-concurrent", fingerprint: "f" };

    const first = store.run(request, slow);
    await running; // the first holds the key (its record is written before its work starts)
    const duplicates = await Promise.all([store.run(request, slow), store.run(request, slow)]);
    release();

    expect(duplicates).toEqual([{ kind: "in_progress" }, { kind: "in_progress" }]);
    expect(await first).toMatchObject({ kind: "completed", replayed: false });
    expect(runs).toBe(1);
  });

  it("keeps nothing when the work throws: the same key runs again", async () => {
    const request = { key: "key-throws", fingerprint: "f" };
    await expect(
      store.run(request, async () => {
        throw new Error("gateway unavailable");
      }),
    ).rejects.toThrow("gateway unavailable");
    const retry = counted(answer({ id: "second try" }));
    expect(await store.run(request, retry.work)).toMatchObject({ kind: "completed", replayed: false });
    expect(retry.runs()).toBe(1);
  });

  it("stores digests and the response only, under its own partition with the table's TTL attribute", async () => {
    await store.run({ key: "plain-key-value", fingerprint: "fingerprint-value" }, async () =>
      answer({ ok: true }),
    );
    const { Items = [] } = await db.client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": IDEMPOTENCY_PARTITION },
      }),
    );
    const text = JSON.stringify(Items);
    expect(text).not.toContain("plain-key-value");
    expect(text).not.toContain("fingerprint-value");
    const record = Items.find((item) => JSON.stringify(item.data ?? "").includes('"ok":true'));
    expect(record?.sk).toMatch(/^merchant-api#/);
    expect(typeof record?.[TTL_ATTRIBUTE]).toBe("number");
    expect(record?.status).toBe("COMPLETED");
  });
});
