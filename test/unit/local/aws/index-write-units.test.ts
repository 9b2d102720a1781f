import type { GlobalSecondaryIndex } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { billingTableDefinition } from "../../../../functions/adapters/table/billing-table";
import { indexWriteUnits, itemBytes } from "../../../../local/aws/index-write-units";

const index = (name: string, projection: GlobalSecondaryIndex["Projection"]): GlobalSecondaryIndex => ({
  IndexName: name,
  KeySchema: [
    { AttributeName: `${name}_pk`, KeyType: "HASH" },
    { AttributeName: `${name}_sk`, KeyType: "RANGE" },
  ],
  Projection: projection,
});
const INDEXES = [
  index("all", { ProjectionType: "ALL" }),
  index("keys", { ProjectionType: "KEYS_ONLY" }),
  index("some", { ProjectionType: "INCLUDE", NonKeyAttributes: ["status"] }),
];
const TABLE_KEYS = ["pk", "sk"];
const units = (before?: Record<string, unknown>, after?: Record<string, unknown>) =>
  indexWriteUnits(INDEXES, TABLE_KEYS, before, after);
const base = { pk: "A", sk: "B", status: "pending", note: "x" };
const inAll = { all_pk: "p", all_sk: "1" };

describe("indexWriteUnits", () => {
  it("counts an item entering or leaving an index as one write", () => {
    expect(units(base, { ...base, ...inAll })).toEqual({ all: 1 });
    expect(units({ ...base, ...inAll }, base)).toEqual({ all: 1 });
    expect(units(undefined, { ...base, keys_pk: "p", keys_sk: "1" })).toEqual({ keys: 1 });
  });

  it("counts a changed index key as a delete and a put", () => {
    expect(units({ ...base, ...inAll }, { ...base, all_pk: "p", all_sk: "2" })).toEqual({ all: 2 });
  });

  it("counts a change of projected attributes only where they are projected", () => {
    const keyed = { ...base, ...inAll, keys_pk: "p", keys_sk: "1", some_pk: "p", some_sk: "1" };
    expect(units(keyed, { ...keyed, note: "y" })).toEqual({ all: 1 });
    expect(units(keyed, { ...keyed, status: "succeeded" })).toEqual({ all: 1, some: 1 });
    expect(units(keyed, keyed)).toEqual({});
  });

  it("needs both key attributes for an item to be in an index", () => {
    expect(units(base, { ...base, all_pk: "p" })).toEqual({});
  });

  it("charges one unit per started KB of the index entry", () => {
    const large = { ...base, ...inAll, note: "x".repeat(2_100) };
    expect(itemBytes(large)).toBeGreaterThan(2_048);
    expect(units(base, large)).toEqual({ all: 3 });
  });

  it("sizes values as DynamoDB does", () => {
    expect(itemBytes({ ab: "cd" })).toBe(4);
    expect(itemBytes({ n: 12345 })).toBe(1 + 4);
    expect(itemBytes({ b: true })).toBe(2);
    expect(itemBytes({ l: ["a", "b"] })).toBe(1 + 3 + 2 + 2);
  });

  it("reads the billing table's own indexes", () => {
    const table = billingTableDefinition("t");
    const subscription = { pk: "SUB#1", sk: "SUB", due_pk: "due#20270101#0", due_sk: "a", status: "active" };
    const moved = { ...subscription, due_pk: "due#20270201#0", due_sk: "b" };
    expect(indexWriteUnits(table.GlobalSecondaryIndexes ?? [], TABLE_KEYS, subscription, moved)).toEqual({
      due: 2,
    });
  });
});
