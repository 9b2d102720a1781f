import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/base/charge-policy";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import type { FaultSettings } from "../../../sandbox/faults/faults";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// A payment request that meets an HTTP 5xx from the gateway (README, Exactly once): nothing in the answer proves the
// gateway did not act, so the outcome is unknown — 202, settled by the attempt sweep through retrieve — never read as
// "nothing happened". Whether the gateway committed before failing (a 500 after commit) or not (a 503 before), the
// same request with the same key then answers what it came to, and the customer pays at most once (a sign-up whose
// token was never learned is ended and refunded).

const { call, stack, signUp } = merchantApiOnStack("mk_test_payments_fault_0123456789abcdef");

const view = z.looseObject({ subscription_id: z.string(), status: z.string() });
const chargeView = z.looseObject({ charge_id: z.string(), status: z.string() });

const signupBody = (name: string) => ({
  customer: { name, email: "grace@example.com" },
  plan: { amount: "19.90", currency: "USD", interval_months: 1 },
  card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
});

/** The sandbox's sales for one subscription's order_ids, by period. */
const salesOf = (id: string) =>
  [...stack().sandbox.state.payments.payments()]
    .filter((payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id)
    .map((payment) => attemptKeyOf(payment.orderId)?.period);

/** One request under a fault of one gateway route, the fault lifted after it. */
async function underFault<T>(
  route: string,
  fault: Partial<FaultSettings>,
  request: () => Promise<T>,
): Promise<T> {
  stack().sandbox.faults.configure({ routes: { [route]: fault } });
  try {
    return await request();
  } finally {
    stack().sandbox.faults.configure({});
  }
}

/** Past the in-flight window, then the attempt sweep. */
async function sweepLater(): Promise<void> {
  await stack().clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
  await stack().attemptSweep();
}

describe("a payment request that meets a 5xx", () => {
  const signUpUnderFault = async (fault: Partial<FaultSettings>) => {
    const key = `signup-${JSON.stringify(fault)}`;
    const post = () =>
      call("POST", "/v1/subscriptions", { body: signupBody("Grace Hopper"), idempotencyKey: key });
    const first = await underFault("payments.payment", fault, post);
    expect(first.status).toBe(202);
    await sweepLater();
    return { id: view.parse(first.json).subscription_id, again: await post() };
  };

  it("a sign-up with a 503 before the gateway did anything is pending, then the same key pays once", async () => {
    const { id, again } = await signUpUnderFault({ errorRate: 1 });
    expect(again.status).toBe(201);
    expect(view.parse(again.json)).toMatchObject({ subscription_id: id, status: "active" });
    expect(salesOf(id)).toEqual([0]);
  });

  it("a sign-up with a 500 after the gateway committed never learned its token: ended, its one payment refunded", async () => {
    const { id, again } = await signUpUnderFault({ errorAfterCommitRate: 1 });
    // A paid subscription with no card to bill would be past_due at once: the sign-up ends and the sale goes back.
    expect(again.status).toBe(422);
    expect(salesOf(id)).toEqual([0]);
    const sale = [...stack().sandbox.state.payments.payments()].find(
      (payment) => attemptKeyOf(payment.orderId)?.subscription_id === id,
    );
    expect(Number(sale?.balance)).toBe(0);
  });

  it.each([
    ["a 503 before the gateway did anything", { errorRate: 1 }, []],
    ["a 500 after the gateway committed", { errorAfterCommitRate: 1 }, [5000]],
  ] as const)(
    "an ad hoc charge with %s is pending, settled by retrieve, and charged once",
    async (_n, fault, sold) => {
      const id = view.parse(await signUp()).subscription_id;
      const key = `charge-${JSON.stringify(fault)}`;
      const charge = () =>
        call("POST", `/v1/subscriptions/${id}/charges`, { body: { amount: "5.00" }, idempotencyKey: key });
      const first = await underFault("payments.tokenbilling.rebill", fault, charge);
      expect(first.status).toBe(202);
      expect(chargeView.parse(first.json).status).toBe("unknown");

      await sweepLater();
      // What the sweep found: the sale, or nothing (voided: the same key then charges anew, once).
      expect(salesOf(id)).toEqual([0, ...sold]);
      const again = await charge();
      expect(again.status).toBe(201);
      expect(chargeView.parse(again.json).status).toBe("succeeded");
      expect(salesOf(id)).toHaveLength(2);
      expect((await charge()).status).toBe(201);
      expect(salesOf(id)).toHaveLength(2);
    },
  );
});
