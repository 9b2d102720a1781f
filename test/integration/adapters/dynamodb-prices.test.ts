import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentClientOf } from "../../../functions/adapters/aws/dynamodb-client";
import { createDynamoDbPriceStore } from "../../../functions/adapters/dynamodb/dynamodb-prices";
import type { Price, PriceStore } from "../../../functions/core/ports/price-store";
import { LOCAL_CREDENTIALS, LOCAL_REGION, type LocalDynamoDb } from "../../../local/aws/dynamodb-emulator";
import { startTestDynamoDb } from "../../support/test-dynamodb";

// The catalog's prices on the billing table (README, Catalog): a lookup key names one price at most, however many
// creations and edits race for it.

let db: LocalDynamoDb;
let client: DynamoDBClient;
let store: PriceStore;
let tableName: string;

beforeAll(async () => {
  db = await startTestDynamoDb();
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  tableName = await db.createBillingTable();
  store = createDynamoDbPriceStore({ client: documentClientOf(client), tableName });
});
afterAll(async () => {
  client.destroy();
  await db.close();
});

const AT = "2027-01-01T00:00:00.000Z";
let made = 0;
const price = (terms: Partial<Price> = {}): Price => {
  made += 1;
  return {
    price_id: `price_${String(made).padStart(6, "0")}`,
    product: { name: "Pro" },
    amount: "19.90",
    currency: "USD",
    interval_months: 1,
    active: true,
    revision: 1,
    created_at: AT,
    updated_at: AT,
    ...terms,
  };
};

/** A store whose first write of a price waits until let go: an edit stopped between taking its key and writing it. */
function pausedStore() {
  let letGo = () => {};
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let arrive = () => {};
  const atWrite = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let paused = false;
  const documents = documentClientOf(client);
  const pausing = {
    send: async (command: Parameters<DynamoDBDocumentClient["send"]>[0]) => {
      if (command instanceof UpdateCommand && !paused) {
        paused = true;
        arrive();
        await gate;
      }
      return documents.send(command);
    },
  } as DynamoDBDocumentClient;
  return { store: createDynamoDbPriceStore({ client: pausing, tableName }), atWrite, letGo };
}

describe("the price store", () => {
  it("gives a lookup key to one of the prices created for it at once", async () => {
    const racing = Array.from({ length: 6 }, () => price({ lookup_key: "team_monthly" }));
    const answers = await Promise.all(racing.map((each) => store.createPrice(each)));
    expect(answers.filter((answer) => answer === "created")).toHaveLength(1);
    expect(answers.filter((answer) => answer === "lookup_key_taken")).toHaveLength(5);
    const holder = racing[answers.indexOf("created")];
    expect((await store.findByLookupKey("team_monthly"))?.price_id).toBe(holder?.price_id);
    // Created again (a retried request), it is the same price.
    expect(await store.createPrice(holder as Price)).toBe("exists");
  });

  it("moves a key given up to one of the prices that race for it", async () => {
    const first = price({ lookup_key: "team_yearly" });
    await store.createPrice(first);
    const racers = [price(), price(), price()];
    await Promise.all(racers.map((each) => store.createPrice(each)));
    await store.updatePrice(first.price_id, { lookup_key: null, updated_at: "2027-01-02T00:00:00.000Z" });
    const answers = await Promise.all(
      racers.map((each) =>
        store.updatePrice(each.price_id, {
          lookup_key: "team_yearly",
          updated_at: "2027-01-03T00:00:00.000Z",
        }),
      ),
    );
    expect(answers.filter((answer) => answer === "updated")).toHaveLength(1);
    const holders = await Promise.all(
      [first, ...racers].map(async (each) => (await store.getPrice(each.price_id))?.lookup_key),
    );
    expect(holders.filter((key) => key === "team_yearly")).toHaveLength(1);
    expect(await store.updatePrice("price_none", { active: false, updated_at: AT })).toBe("not_found");
  });

  it("never lets an edit stopped between taking a key and writing it show the key another price took meanwhile", async () => {
    const gave = price({ lookup_key: "team_weekly" });
    const slow = price();
    const quick = price();
    await Promise.all([gave, slow, quick].map((each) => store.createPrice(each)));
    await store.updatePrice(gave.price_id, { lookup_key: null, updated_at: "2027-01-02T00:00:00.000Z" });
    // The slow edit takes the key, then stops before its write; the quick one fences it and takes the key over.
    const paused = pausedStore();
    const slowEdit = paused.store.updatePrice(slow.price_id, {
      lookup_key: "team_weekly",
      updated_at: "2027-01-03T00:00:00.000Z",
    });
    await paused.atWrite;
    expect(
      await store.updatePrice(quick.price_id, {
        lookup_key: "team_weekly",
        updated_at: "2027-01-03T00:00:00.000Z",
      }),
    ).toBe("updated");
    paused.letGo();
    expect(await slowEdit).toBe("lookup_key_taken");
    expect((await store.getPrice(slow.price_id))?.lookup_key).toBeUndefined();
    expect((await store.findByLookupKey("team_weekly"))?.price_id).toBe(quick.price_id);
  });

  it("loses no edit of those made at one instant (a standing clock)", async () => {
    const edited = price();
    await store.createPrice(edited);
    const edits = ["a", "b", "c", "d"].map((name) =>
      store.updatePrice(edited.price_id, { metadata: { [name]: "1" }, updated_at: AT }),
    );
    expect(await Promise.all(edits)).toEqual(["updated", "updated", "updated", "updated"]);
    expect((await store.getPrice(edited.price_id))?.metadata).toEqual({ a: "1", b: "1", c: "1", d: "1" });
  });

  it("lists by activity, a page at a time", async () => {
    const archived = price();
    await store.createPrice(archived);
    await store.updatePrice(archived.price_id, { active: false, updated_at: "2027-01-02T00:00:00.000Z" });
    // A page of active prices is full however many archived ones the filter drops.
    const firstActive = await store.listPrices({ active: true }, { limit: 2 });
    expect(firstActive.prices).toHaveLength(2);
    const active = await store.listPrices({ active: true }, { limit: 100 });
    expect(active.prices.map((each) => each.price_id)).not.toContain(archived.price_id);
    const all = await store.listPrices({}, { limit: 100 });
    expect(all.prices.map((each) => each.price_id)).toContain(archived.price_id);
  });
});
