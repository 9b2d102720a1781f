import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { InvalidCursorError } from "../../core/ports/billing-repository";
import { type Coupon, type CouponStore, couponSchema } from "../../core/ports/coupon-store";
import { lazySchema } from "../../shared/lazy-schema";
import { COUPONS_PARTITION, couponCodeKey, couponKey, recordOf } from "../table/billing-table";
import { conditionally, type Item } from "../table/dynamodb-table";

export interface DynamoDbCouponStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** The subscriptions that redeemed a capped coupon: kept on its item, never part of the record. */
const REDEEMED_BY = "redeemed_by";

const couponOf = (item: Item): Coupon => {
  const { [REDEEMED_BY]: _redeemers, ...record } = recordOf(item);
  return couponSchema.parse(record);
};

const cursorSchema = lazySchema(() => z.string().regex(/^co_[A-Za-z0-9]{1,60}$/));

/**
 * Coupons in the billing table (keys: billing-table.ts): one partition holds them all, listed by one Query; a code is
 * a create-only item naming its coupon, written before the coupon; a redemption is one conditional UpdateItem of the
 * coupon, which adds the subscription to the coupon's set of redeemers (a capped coupon) and counts it, only while
 * the count is under the cap and the subscription is not in the set yet; a release takes it out and counts it down,
 * only while it is in the set.
 */
export function createDynamoDbCouponStore({ client, tableName }: DynamoDbCouponStoreOptions): CouponStore {
  const get = async (key: Item) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  const putNew = (item: Item) =>
    conditionally(() =>
      client.send(
        new PutCommand({ TableName: tableName, Item: item, ConditionExpression: "attribute_not_exists(pk)" }),
      ),
    );
  const store: CouponStore = {
    async createCoupon(coupon) {
      if (coupon.code !== undefined) {
        const code = couponCodeKey(coupon.code);
        const reserved = await putNew({ ...code, coupon_id: coupon.coupon_id });
        if (!reserved && (await get(code))?.coupon_id !== coupon.coupon_id) return "code_taken";
      }
      return (await putNew({ ...couponKey(coupon.coupon_id), ...coupon })) ? "created" : "exists";
    },
    async getCoupon(couponId) {
      const item = await get(couponKey(couponId));
      return item === undefined ? undefined : couponOf(item);
    },
    async findByCode(code) {
      const item = await get(couponCodeKey(code));
      return typeof item?.coupon_id === "string" ? store.getCoupon(item.coupon_id) : undefined;
    },
    async listCoupons({ limit, cursor }) {
      if (cursor !== undefined && !cursorSchema.safeParse(cursor).success)
        throw new InvalidCursorError("is not a cursor of this listing");
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": COUPONS_PARTITION },
          Limit: limit,
          ...(cursor === undefined ? {} : { ExclusiveStartKey: couponKey(cursor) }),
        }),
      );
      const next = LastEvaluatedKey?.sk;
      return { coupons: Items.map(couponOf), ...(typeof next === "string" ? { cursor: next } : {}) };
    },
    async redeem(coupon, subscriptionId) {
      const capped = coupon.max_redemptions !== undefined;
      const counted = await conditionally(() =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: couponKey(coupon.coupon_id),
            UpdateExpression: capped
              ? "ADD times_redeemed :one, #redeemers :subscription"
              : "ADD times_redeemed :one",
            ConditionExpression: capped
              ? "attribute_exists(pk) AND times_redeemed < :cap AND NOT contains(#redeemers, :id)"
              : "attribute_exists(pk)",
            ExpressionAttributeValues: {
              ":one": 1,
              ...(capped
                ? {
                    ":cap": coupon.max_redemptions,
                    ":subscription": new Set([subscriptionId]),
                    ":id": subscriptionId,
                  }
                : {}),
            },
            ...(capped ? { ExpressionAttributeNames: { "#redeemers": REDEEMED_BY } } : {}),
          }),
        ),
      );
      if (counted) return "redeemed";
      const item = await get(couponKey(coupon.coupon_id));
      const redeemers = item?.[REDEEMED_BY];
      return redeemers instanceof Set && redeemers.has(subscriptionId) ? "already" : "exhausted";
    },
    release: (couponId, subscriptionId) =>
      conditionally(() =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: couponKey(couponId),
            UpdateExpression: "ADD times_redeemed :minus_one DELETE #redeemers :subscription",
            ConditionExpression: "contains(#redeemers, :id)",
            ExpressionAttributeNames: { "#redeemers": REDEEMED_BY },
            ExpressionAttributeValues: {
              ":minus_one": -1,
              ":subscription": new Set([subscriptionId]),
              ":id": subscriptionId,
            },
          }),
        ),
      ),
  };
  return store;
}
