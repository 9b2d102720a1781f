import type { GlobalSecondaryIndex } from "@aws-sdk/client-dynamodb";

// The write units a table write costs in its global secondary indexes, from the item before and after it, by
// DynamoDB's rules (developer guide, "Provisioned throughput considerations for GSIs"): an item entering or leaving an
// index is one index write, a change of its index key is two (a delete and a put), a change of only its projected
// attributes is one, and anything else none. Each index write costs one unit per started KB of the index entry.
// dynalite reports only the table's units; these are the rest of the bill.

type Item = Readonly<Record<string, unknown>>;

/** An attribute value's size as DynamoDB counts it (UTF-8 strings, numbers by digits, lists and maps + 3 bytes). */
function valueBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (typeof value === "number" || typeof value === "bigint") {
    const digits = String(value)
      .replace(/[-.]|e.*$/gi, "")
      .replace(/^0+/, "").length;
    return Math.ceil(Math.max(1, digits) / 2) + 1;
  }
  if (typeof value === "boolean" || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueBytes(member), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, member) => sum + 1 + valueBytes(member), 0);
  if (typeof value === "object") return 3 + itemBytes(value as Item) + Object.keys(value).length;
  return 0;
}

/** An item's size: its attribute names and values. */
export function itemBytes(item: Item): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name, "utf8") + valueBytes(value),
    0,
  );
}

const unitsOf = (entry: Item) => Math.max(1, Math.ceil(itemBytes(entry) / 1024));

function pick(item: Item, names: readonly string[]): Item {
  return Object.fromEntries(names.filter((name) => name in item).map((name) => [name, item[name]]));
}

/** What the index holds of an item: its table and index keys, and its projected attributes. */
function entryOf(index: GlobalSecondaryIndex, tableKeys: readonly string[], item: Item): Item {
  if (index.Projection?.ProjectionType === "ALL") return item;
  const keys = [...tableKeys, ...(index.KeySchema ?? []).map((key) => key.AttributeName ?? "")];
  const included =
    index.Projection?.ProjectionType === "INCLUDE" ? (index.Projection.NonKeyAttributes ?? []) : [];
  return pick(item, [...keys, ...included]);
}

const sameEntry = (a: Item, b: Item) =>
  JSON.stringify(Object.entries(a).sort(([x], [y]) => x.localeCompare(y))) ===
  JSON.stringify(Object.entries(b).sort(([x], [y]) => x.localeCompare(y)));

/** Index write units of one write, by index name (indexes it did not touch are left out). */
export function indexWriteUnits(
  indexes: readonly GlobalSecondaryIndex[],
  tableKeys: readonly string[],
  before: Item | undefined,
  after: Item | undefined,
): Record<string, number> {
  const units: Record<string, number> = {};
  for (const index of indexes) {
    const keyNames = (index.KeySchema ?? []).map((key) => key.AttributeName ?? "");
    const inIndex = (item: Item | undefined): item is Item =>
      item !== undefined && keyNames.every((name) => item[name] !== undefined);
    const old = inIndex(before) ? entryOf(index, tableKeys, before) : undefined;
    const next = inIndex(after) ? entryOf(index, tableKeys, after) : undefined;
    let cost = 0;
    if (old !== undefined && next !== undefined) {
      const keyChanged = keyNames.some((name) => old[name] !== next[name]);
      if (keyChanged) cost = unitsOf(old) + unitsOf(next);
      else if (!sameEntry(old, next)) cost = unitsOf(next);
    } else if (old !== undefined) cost = unitsOf(old);
    else if (next !== undefined) cost = unitsOf(next);
    if (cost > 0 && index.IndexName !== undefined) units[index.IndexName] = cost;
  }
  return units;
}
