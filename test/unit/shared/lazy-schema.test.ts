import { describe, expect, it } from "vitest";
import * as z from "zod";
import { lazySchema, lazyShape } from "../../../functions/shared/lazy-schema";

// Schemas declared through lazySchema are built on first read and are then the schema itself: same parse, same
// identity inside the schemas that hold them, instanceof, and the description the OpenAPI document reads.

describe("lazySchema", () => {
  it("builds nothing until first read, then once", () => {
    let builds = 0;
    const amount = lazySchema(() => {
      builds += 1;
      return z.string().regex(/^\d+\.\d{2}$/);
    });
    expect(builds).toBe(0);
    expect(amount.safeParse("19.90").success).toBe(true);
    expect(amount.safeParse("19.9").success).toBe(false);
    expect(builds).toBe(1);
  });

  it("is a schema of its kind, held by identity in the schemas built from it, with its description", () => {
    const plan = lazySchema(() =>
      z.object({ amount: z.string(), seats: z.number().int() }).describe("A plan."),
    );
    const subscription = lazySchema(() => z.object({ id: z.string(), plan }));
    expect(subscription.shape.plan).toBe(plan);
    expect(plan).toBeInstanceOf(z.ZodObject);
    expect(plan.description).toBe("A plan.");
    expect(Object.keys(plan.extend({ product: z.string() }).shape)).toEqual(["amount", "seats", "product"]);
    expect(subscription.parse({ id: "sub_1", plan: { amount: "5.00", seats: 2 } })).toEqual({
      id: "sub_1",
      plan: { amount: "5.00", seats: 2 },
    });
    expect(z.toJSONSchema(subscription).properties?.plan).toMatchObject({ description: "A plan." });
  });
});

describe("lazyShape", () => {
  it("builds the fields once, on first call", () => {
    let builds = 0;
    const subject = lazyShape(() => {
      builds += 1;
      return { subscription_id: z.string() };
    });
    expect(builds).toBe(0);
    expect(subject()).toBe(subject());
    expect(builds).toBe(1);
  });
});
