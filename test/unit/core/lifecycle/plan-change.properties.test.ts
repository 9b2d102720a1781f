import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRandomIds } from "../../../../functions/adapters/outside/random-ids";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import { toCents } from "../../../../functions/core/base/money";
import { unusedPartCents } from "../../../../functions/core/base/proration";
import { changePlan } from "../../../../functions/core/lifecycle/plan-change";
import type { BillingRepository } from "../../../../functions/core/ports/billing-repository";
import type { CouponStore } from "../../../../functions/core/ports/coupon-store";
import type { ChargeMessage } from "../../../../functions/core/ports/queues";
import { planHistories } from "../../../../local/audit/money-audit";
import { dueSubscription, START } from "../../../support/fake-billing";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { MoneyGateway } from "../../../support/money-gateway";
import { partialPort } from "../../../support/partial-port";

// Concurrent plan changes (README, Subscription lifecycle: adjust with charge_now), each request with its own key, in
// every order fast-check's scheduler can give the repository's and the gateway's answers, at one instant (so a whole
// change can leave updated_at as another request read it). The gateway keeps, in proration sales, exactly the prorated
// difference of every change the subscription announces as applied: a change priced on a plan since replaced charges
// nothing, a change to the plan already held charges nothing.

const ID = "sub_plans";
const AMOUNTS = ["5.00", "19.90", "29.90", "39.90", "49.90"] as const;

/** In period 1 (2027-02-28 → 2027-03-28), paid; START is a day into it. */
const paidSubscription = () =>
  dueSubscription(ID, {
    period: 2,
    next_charge_at: "2027-03-28T10:00:00.000Z",
    updated_at: START.toISOString(),
  });

/** Every call of the repository's and the gateway's methods answered when the scheduler says. */
function scheduled<T extends object>(target: T, s: fc.Scheduler): T {
  return new Proxy(target, {
    get(object, name, receiver) {
      const value = Reflect.get(object, name, receiver);
      if (typeof value !== "function" || name === "constructor") return value;
      return s.scheduleFunction(async (...args: unknown[]) => value.apply(object, args));
    },
  });
}

describe("concurrent plan changes", () => {
  it("keep at the gateway the prorated difference of every applied change, and nothing more", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom(...AMOUNTS), { minLength: 2, maxLength: 4 }),
        async (s, amounts) => {
          const clock = { now: () => START };
          const memory = new MemoryBillingRepository({ clock });
          await memory.createSubscription(paidSubscription());
          const gateway = new MoneyGateway();
          const deps = {
            repository: scheduled<BillingRepository>(memory, s),
            gateway: scheduled(gateway, s),
            clock,
            policy: DEFAULT_CHARGE_POLICY,
            coupons: partialPort<CouponStore>({}),
            ids: createRandomIds(),
            queue: { send: async (_: readonly ChargeMessage[]) => {} },
          };
          const answers = amounts.map((amount, key) =>
            changePlan(
              { subscription_id: ID, amount, proration: "charge_now", request_key: `key-${key}` },
              deps,
            ),
          );
          await s.waitFor(Promise.all(answers));
          for (const answer of await Promise.all(answers))
            expect(["changed", "conflict", "pending"]).toContain(answer.kind);

          const plans = ["19.90", ...(planHistories(memory.written).get(ID)?.amounts ?? [])];
          const subscription = await memory.getSubscription(ID);
          expect(subscription?.plan.amount).toBe(plans.at(-1));
          const owed = plans.slice(1).reduce((sum, amount, index) => {
            const cents = toCents(amount) - toCents(plans[index] ?? "0");
            return sum + unusedPartCents(paidSubscription(), 1, { cents, currency: "USD" }, START);
          }, 0);
          const kept = (await memory.listAttempts(ID))
            .filter((line) => line.purpose === "proration" && gateway.sales.has(line.order_id))
            .reduce((sum, line) => sum + toCents(line.amount), 0);
          expect(kept).toBe(owed);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  });
});
