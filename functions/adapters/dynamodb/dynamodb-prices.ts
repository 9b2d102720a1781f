import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { InvalidCursorError } from "../../core/ports/billing-repository";
import { type Price, type PriceEdit, type PriceStore, priceSchema } from "../../core/ports/price-store";
import { lazySchema } from "../../shared/lazy-schema";
import { PRICES_PARTITION, priceKey, priceLookupKey, recordOf } from "../table/billing-table";
import { conditionally, type Item } from "../table/dynamodb-table";

export interface DynamoDbPriceStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

const priceOf = (item: Item): Price => priceSchema.parse(recordOf(item));
const cursorSchema = lazySchema(() => z.string().regex(/^price_[A-Za-z0-9]{1,60}$/));

/**
 * The catalog's prices in the billing table (keys: billing-table.ts): one partition holds them all, listed by one
 * Query; a lookup key is a create-only item naming its price, reserved before the price takes it and released after
 * it gives it up, so two prices never share one. A reservation an edit left behind (its price no longer has the key)
 * is taken over.
 */
export function createDynamoDbPriceStore({ client, tableName }: DynamoDbPriceStoreOptions): PriceStore {
  const get = async (key: Item) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  const getPrice = async (priceId: string) => {
    const item = await get(priceKey(priceId));
    return item === undefined ? undefined : priceOf(item);
  };
  /** The lookup key reserved for `priceId`: false when another price holds it. */
  const reserve = async (lookupKey: string, priceId: string): Promise<boolean> => {
    const key = priceLookupKey(lookupKey);
    const put = (condition: string, holder?: string) =>
      conditionally(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...key, price_id: priceId },
            ConditionExpression: condition,
            ExpressionAttributeValues: { ":holder": holder ?? priceId },
          }),
        ),
      );
    if (await put("attribute_not_exists(pk) OR price_id = :holder")) return true;
    const holder = (await get(key))?.price_id;
    if (typeof holder !== "string") return reserve(lookupKey, priceId);
    // A holder not written yet may be a creation in flight: the key stays its (a retry of it takes it again).
    const held = await getPrice(holder);
    if (held === undefined || held.lookup_key === lookupKey) return false;
    // An edit of the holder may be about to write the key: fenced first (its write expects the revision it read, which
    // this moves on), so that write fails and the edit starts again, meeting the key taken.
    if (!(await fence(held, lookupKey))) return false;
    return put("price_id = :holder", holder);
  };
  /** Moves a price's revision on while it does not show `lookupKey`: false when it changed meanwhile. */
  const fence = (held: Price, lookupKey: string) =>
    conditionally(() =>
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: priceKey(held.price_id),
          UpdateExpression: "SET revision = :next",
          ConditionExpression:
            "revision = :read AND (attribute_not_exists(lookup_key) OR lookup_key <> :key)",
          ExpressionAttributeValues: {
            ":read": held.revision,
            ":next": held.revision + 1,
            ":key": lookupKey,
          },
        }),
      ),
    );
  const release = (lookupKey: string, priceId: string) =>
    conditionally(() =>
      client.send(
        new DeleteCommand({
          TableName: tableName,
          Key: priceLookupKey(lookupKey),
          ConditionExpression: "price_id = :id",
          ExpressionAttributeValues: { ":id": priceId },
        }),
      ),
    );
  return {
    async createPrice(price) {
      if (price.lookup_key !== undefined && !(await reserve(price.lookup_key, price.price_id)))
        return "lookup_key_taken";
      const created = await conditionally(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...priceKey(price.price_id), ...price },
            ConditionExpression: "attribute_not_exists(pk)",
          }),
        ),
      );
      return created ? "created" : "exists";
    },
    getPrice,
    async findByLookupKey(lookupKey) {
      const holder = (await get(priceLookupKey(lookupKey)))?.price_id;
      const price = typeof holder === "string" ? await getPrice(holder) : undefined;
      return price?.lookup_key === lookupKey ? price : undefined;
    },
    async listPrices({ active }, { limit, cursor }) {
      if (cursor !== undefined && !cursorSchema.safeParse(cursor).success)
        throw new InvalidCursorError("is not a cursor of this listing");
      // A filtered page is filled up to its limit: the filter drops items after each Query's limit.
      const prices: Price[] = [];
      let after = cursor;
      do {
        const { Items = [], LastEvaluatedKey } = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: "pk = :pk",
            ...(active === undefined
              ? { ExpressionAttributeValues: { ":pk": PRICES_PARTITION } }
              : {
                  FilterExpression: "active = :active",
                  ExpressionAttributeValues: { ":pk": PRICES_PARTITION, ":active": active },
                }),
            Limit: limit - prices.length,
            ...(after === undefined ? {} : { ExclusiveStartKey: priceKey(after) }),
          }),
        );
        prices.push(...Items.map(priceOf));
        after = typeof LastEvaluatedKey?.sk === "string" ? LastEvaluatedKey.sk : undefined;
      } while (after !== undefined && prices.length < limit);
      return { prices, ...(after === undefined ? {} : { cursor: after }) };
    },
    async updatePrice(priceId, edit) {
      for (let tries = 1; tries <= EDIT_TRIES; tries += 1) {
        const done = await editOnce(priceId, edit);
        if (done !== "overtaken") return done;
      }
      return "busy";
    },
  };

  /** One try of an edit over the price as read: `overtaken` when another write came between. */
  async function editOnce(priceId: string, edit: PriceEdit) {
    const current = await getPrice(priceId);
    if (current === undefined) return "not_found";
    const lookupKey = edit.lookup_key === undefined ? current.lookup_key : (edit.lookup_key ?? undefined);
    if (lookupKey !== undefined && lookupKey !== current.lookup_key && !(await reserve(lookupKey, priceId)))
      return "lookup_key_taken";
    const metadata = Object.fromEntries(
      Object.entries({ ...current.metadata, ...edit.metadata }).filter(([, value]) => value !== ""),
    );
    const next: Price = {
      ...current,
      ...(edit.active === undefined ? {} : { active: edit.active }),
      lookup_key: lookupKey,
      metadata: Object.keys(metadata).length === 0 ? undefined : metadata,
      revision: current.revision + 1,
      updated_at: edit.updated_at,
    };
    const fields: Record<string, unknown> = Object.fromEntries(
      Object.entries(next).filter(([name, value]) => value !== undefined && name !== "price_id"),
    );
    const names = Object.keys(fields);
    const removed = (["lookup_key", "metadata"] as const).filter((name) => next[name] === undefined);
    const written = await conditionally(() =>
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: priceKey(priceId),
          UpdateExpression: [
            `SET ${names.map((name) => `#${name} = :${name}`).join(", ")}`,
            ...(removed.length === 0 ? [] : [`REMOVE ${removed.map((name) => `#${name}`).join(", ")}`]),
          ].join(" "),
          ConditionExpression: "revision = :read",
          ExpressionAttributeNames: Object.fromEntries(
            [...names, ...removed].map((name) => [`#${name}`, name]),
          ),
          ExpressionAttributeValues: {
            ...Object.fromEntries(names.map((name) => [`:${name}`, fields[name]])),
            ":read": current.revision,
          },
        }),
      ),
    );
    // Another write came first: this edit is made again on the price as it now is.
    if (!written) return "overtaken" as const;
    if (current.lookup_key !== undefined && current.lookup_key !== lookupKey)
      await release(current.lookup_key, priceId);
    return "updated" as const;
  }
}

/** How often an edit is made again over writes that keep coming first. */
const EDIT_TRIES = 5;
