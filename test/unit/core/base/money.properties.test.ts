import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRandomIds } from "../../../../functions/adapters/outside/random-ids";
import { isAdHocPeriod } from "../../../../functions/core/base/charge-kind";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import { processChargeMessage } from "../../../../functions/core/charging/charge-engine";
import { runAttemptSweep } from "../../../../functions/core/intake/attempt-sweep";
import { changePlan } from "../../../../functions/core/lifecycle/plan-change";
import { cancelSubscription } from "../../../../functions/core/lifecycle/subscription-changes";
import type { BillingRepository } from "../../../../functions/core/ports/billing-repository";
import type { CouponStore } from "../../../../functions/core/ports/coupon-store";
import type { ChargeMessage } from "../../../../functions/core/ports/queues";
import { refundCharge } from "../../../../functions/core/refunds/refunds";
import { compareLedgerRecords } from "../../../../local/audit/ledger-comparison";
import { auditMoney } from "../../../../local/audit/money-audit";
import { dueSubscription, START } from "../../../support/fake-billing";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { MoneyGateway } from "../../../support/money-gateway";
import { partialPort } from "../../../support/partial-port";
import type { RefundFate } from "../../../support/refunding-gateway";

// Money under random sequences (README, Exactly once): renewals, refunds, cancels with refunds, prorated upgrades and
// credited decreases, asked again and concurrently, while the gateway loses answers, fails before or after committing,
// declines, and the process dies after any write. Once the attempt sweep has settled what was left open, the gateway's money equals the
// ledger's, sale for sale and refund for refund, on the memory repository.

const ID = "sub_money";
const WINDOW_MS = DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000;

/** What a simulated crash throws: the request or worker stops there. */
class Crash extends Error {}

type Operation =
  | { readonly kind: "renew" }
  | { readonly kind: "refund"; readonly key: number; readonly cents?: number }
  | { readonly kind: "cancel"; readonly refund: "none" | "prorated" | "full" }
  | { readonly kind: "upgrade"; readonly amount: "29.90" | "39.90"; readonly key: number }
  | { readonly kind: "downgrade"; readonly amount: "9.90" | "19.90"; readonly key: number }
  | { readonly kind: "sweep" }
  | { readonly kind: "later"; readonly days: number };

interface Step {
  /** Requests that race: run at once. */
  readonly operations: readonly Operation[];
  readonly fate: RefundFate;
  /** Each request dies after this many of its writes (0: it does not). */
  readonly crashAfterWrites: number;
}

const operation = fc.oneof(
  fc.constant<Operation>({ kind: "renew" }),
  fc.record({
    kind: fc.constant("refund" as const),
    key: fc.integer({ min: 0, max: 3 }),
    cents: fc.option(fc.integer({ min: 1, max: 1200 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant("cancel" as const), refund: fc.constantFrom("none", "prorated", "full") }),
  fc.record({
    kind: fc.constant("upgrade" as const),
    amount: fc.constantFrom("29.90", "39.90"),
    key: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({
    kind: fc.constant("downgrade" as const),
    amount: fc.constantFrom("9.90", "19.90"),
    key: fc.integer({ min: 0, max: 2 }),
  }),
  fc.constant<Operation>({ kind: "sweep" }),
  fc.record({ kind: fc.constant("later" as const), days: fc.integer({ min: 1, max: 20 }) }),
);

const step: fc.Arbitrary<Step> = fc.record({
  operations: fc.array(operation, { minLength: 1, maxLength: 3 }),
  fate: fc.constantFrom<RefundFate>("ok", "ok", "lost", "failedBefore", "declined"),
  crashAfterWrites: fc.constantFrom(0, 0, 1, 2, 3),
});

const WRITES = [
  "claimAttempt",
  "updateAttempt",
  "updateSubscription",
  "createRefund",
  "updateRefund",
] as const;

/** The repository of one request, dying after its `after`-th write (the write itself applied). */
function crashingAfter(repository: MemoryBillingRepository, after: number): BillingRepository {
  const bound = Object.fromEntries(
    Object.getOwnPropertyNames(MemoryBillingRepository.prototype)
      .filter((name) => name !== "constructor")
      .map((name) => [
        name,
        (repository as unknown as Record<string, (...a: unknown[]) => unknown>)[name]?.bind(repository),
      ]),
  ) as unknown as BillingRepository;
  if (after === 0) return bound;
  let writes = 0;
  const crashing: Record<string, unknown> = { ...bound };
  for (const name of WRITES) {
    const write = bound[name] as (...args: unknown[]) => Promise<unknown>;
    crashing[name] = async (...args: unknown[]) => {
      const result = await write(...args);
      writes += 1;
      if (writes === after) throw new Crash();
      return result;
    };
  }
  return crashing as unknown as BillingRepository;
}

function world() {
  let now = START;
  const clock = { now: () => now };
  const repository = new MemoryBillingRepository({ clock });
  const gateway = new MoneyGateway();
  const queued: ChargeMessage[] = [];
  const deps = (crashAfterWrites = 0) => ({
    repository: crashingAfter(repository, crashAfterWrites),
    gateway,
    clock,
    policy: DEFAULT_CHARGE_POLICY,
    coupons: partialPort<CouponStore>({}),
    ids: createRandomIds(),
    queue: { send: async (messages: readonly ChargeMessage[]) => void queued.push(...messages) },
  });
  const later = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  /** The worker takes what the sweep and the cancels handed it. */
  const drain = async (crashAfterWrites = 0) => {
    for (const message of queued.splice(0))
      await processChargeMessage(message, 1, deps(crashAfterWrites)).catch(survive);
  };
  const run = async (op: Operation, crashAfterWrites: number) => {
    const d = deps(crashAfterWrites);
    const subscription = await repository.getSubscription(ID);
    if (subscription === undefined) return;
    switch (op.kind) {
      case "renew": {
        const due = Date.parse(subscription.next_charge_at ?? "");
        if (due > now.getTime()) later(due - now.getTime());
        await processChargeMessage({ subscription_id: ID, period: subscription.period }, 1, d);
        return;
      }
      case "refund": {
        const charge = (await repository.listAttempts(ID)).findLast(
          (line) => line.status === "succeeded" && !isAdHocPeriod(line.period),
        );
        if (charge === undefined) return;
        const amount = op.cents === undefined ? undefined : (op.cents / 100).toFixed(2);
        await refundCharge(
          {
            charge,
            refund_id: `rf${op.key}-${charge.period}`,
            reason: "goodwill",
            ...(amount && { amount }),
          },
          d,
        );
        return;
      }
      case "cancel":
        await cancelSubscription(ID, d, op.refund);
        return;
      case "upgrade":
        await changePlan(
          { subscription_id: ID, amount: op.amount, proration: "charge_now", request_key: `up${op.key}` },
          d,
        );
        return;
      case "downgrade":
        await changePlan(
          { subscription_id: ID, amount: op.amount, proration: "refund_now", request_key: `down${op.key}` },
          d,
        );
        return;
      case "sweep":
        later(WINDOW_MS);
        await runAttemptSweep(d);
        return drain(crashAfterWrites);
      case "later":
        later(op.days * 86_400_000);
        return;
    }
  };
  return { repository, gateway, later, run, drain, deps };
}

/** A simulated crash ends its request; anything else is a failure of the test. */
function survive(error: unknown): void {
  if (!(error instanceof Crash)) throw error;
}

describe("money under random sequences", () => {
  it("keeps the gateway's sales and refunds equal to the ledger's", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const w = world();
        await w.repository.createSubscription(dueSubscription(ID));
        for (const { operations, fate, crashAfterWrites } of steps) {
          w.gateway.fate = () => fate;
          await Promise.all(operations.map((op) => w.run(op, crashAfterWrites).catch(survive)));
        }
        // The incident is over: the sweep settles what was left open, until nothing is, and the next renewal what a
        // crash left between a ledger line and its subscription.
        w.gateway.fate = () => "ok";
        for (let round = 0; round < 6; round += 1) await w.run({ kind: "sweep" }, 0);
        await w.run({ kind: "renew" }, 0);
        for (let round = 0; round < 3; round += 1) await w.run({ kind: "sweep" }, 0);

        const subscription = await w.repository.getSubscription(ID);
        const attempts = await w.repository.listAttempts(ID);
        const comparison = compareLedgerRecords({
          subscriptions: subscription ? [subscription] : [],
          attempts,
          payments: w.gateway.payments(),
        });
        expect(comparison.doubleCharges).toEqual([]);
        expect(comparison.mismatches).toEqual([]);
        const audit = auditMoney({
          subscriptions: subscription ? [subscription] : [],
          attempts,
          refunds: await w.repository.listRefunds(ID),
          gatewayRefunds: w.gateway.refundRecords(),
          events: w.repository.written,
          invoices: (await w.repository.listInvoices({}, { limit: 10_000 })).documents,
          creditNotes: (await w.repository.listCreditNotes({}, { limit: 10_000 })).documents,
        });
        expect(audit).toMatchObject({
          refundMismatches: [],
          openRefunds: [],
          transactionsCreditedTwice: [],
          salesKeptAfterCancel: [],
          prorationMismatches: [],
          creditMismatches: [],
          documentMismatches: [],
        });
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200) },
    );
  });
});
