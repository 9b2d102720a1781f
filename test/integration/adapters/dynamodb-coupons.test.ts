import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentClientOf } from "../../../functions/adapters/aws/dynamodb-client";
import { createDynamoDbCouponStore } from "../../../functions/adapters/dynamodb/dynamodb-coupons";
import { InvalidCursorError } from "../../../functions/core/ports/billing-repository";
import type { Coupon, CouponStore } from "../../../functions/core/ports/coupon-store";
import { LOCAL_CREDENTIALS, LOCAL_REGION, type LocalDynamoDb } from "../../../local/aws/dynamodb-emulator";
import { startTestDynamoDb } from "../../support/test-dynamodb";

// The coupon store on the billing table (README, Coupons): codes unique in any case, and redemptions counted exactly —
// never past max_redemptions however many subscriptions race, each subscription once however often it asks.

let db: LocalDynamoDb;
let client: DynamoDBClient;
let store: CouponStore;

beforeAll(async () => {
  db = await startTestDynamoDb();
  const tableName = await db.createBillingTable();
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  store = createDynamoDbCouponStore({ client: documentClientOf(client), tableName });
});
afterAll(async () => {
  client.destroy();
  await db.close();
});

let made = 0;
const coupon = (terms: Partial<Coupon> = {}): Coupon => {
  made += 1;
  return {
    coupon_id: `co_${String(made).padStart(6, "0")}`,
    percent_off_bp: 1000,
    duration: "once",
    times_redeemed: 0,
    created_at: "2027-01-01T00:00:00.000Z",
    ...terms,
  };
};

describe("the coupon store", () => {
  it("creates a coupon once, and never lets two coupons share a code, whatever its case", async () => {
    const first = coupon({ code: "Spring-25" });
    expect(await store.createCoupon(first)).toBe("created");
    expect(await store.createCoupon(first)).toBe("exists");
    expect(await store.createCoupon(coupon({ code: "SPRING-25" }))).toBe("code_taken");
    expect(await store.findByCode("spring-25")).toEqual(first);
    expect(await store.getCoupon(first.coupon_id)).toEqual(first);
    expect(await store.getCoupon("co_none")).toBeUndefined();
    expect(await store.findByCode("NONE")).toBeUndefined();
  });

  it("lists every coupon a page at a time, and refuses a cursor of no listing", async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listCoupons({ limit: 2, cursor });
      ids.push(...page.coupons.map((each) => each.coupon_id));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(ids).toEqual([...new Set(ids)].sort());
    expect(ids.length).toBeGreaterThanOrEqual(1);
    await expect(store.listCoupons({ limit: 2, cursor: "not a cursor" })).rejects.toThrow(InvalidCursorError);
  });

  it("counts racing redemptions exactly: never past the cap, each subscription once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 12 }),
        async (cap, askers) => {
          const capped = coupon({ max_redemptions: cap });
          await store.createCoupon(capped);
          const answers = await Promise.all(askers.map((asker) => store.redeem(capped, `sub_${asker}`)));
          const distinct = new Set(askers).size;
          const redeemed = answers.filter((answer) => answer === "redeemed").length;
          expect(redeemed).toBe(Math.min(cap, distinct));
          expect((await store.getCoupon(capped.coupon_id))?.times_redeemed).toBe(redeemed);
          // Asked again, a subscription that redeemed it is answered as such, and nothing more is counted.
          const winner = askers.find((_, index) => answers[index] === "redeemed");
          if (winner !== undefined) expect(await store.redeem(capped, `sub_${winner}`)).toBe("already");
          expect((await store.getCoupon(capped.coupon_id))?.times_redeemed).toBe(redeemed);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("gives back a capped redemption once however often asked, and none a subscription does not hold", async () => {
    const capped = coupon({ max_redemptions: 1 });
    await store.createCoupon(capped);
    expect(await store.redeem(capped, "sub_first")).toBe("redeemed");
    expect(await store.redeem(capped, "sub_second")).toBe("exhausted");
    const releases = await Promise.all([1, 2, 3].map(() => store.release(capped.coupon_id, "sub_first")));
    expect(releases.filter(Boolean)).toHaveLength(1);
    expect(await store.release(capped.coupon_id, "sub_second")).toBe(false);
    expect((await store.getCoupon(capped.coupon_id))?.times_redeemed).toBe(0);
    expect(await store.redeem(capped, "sub_second")).toBe("redeemed");
    expect((await store.getCoupon(capped.coupon_id))?.times_redeemed).toBe(1);
  });

  it("counts every redemption of a coupon without a cap", async () => {
    const open = coupon();
    await store.createCoupon(open);
    await Promise.all(["a", "b", "c"].map((id) => store.redeem(open, `sub_${id}`)));
    expect((await store.getCoupon(open.coupon_id))?.times_redeemed).toBe(3);
  });
});
