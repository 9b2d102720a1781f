import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import type { ChargeAttempt } from "../../../../functions/core/base/model";
import { toCents } from "../../../../functions/core/base/money";
import type { BillingRepository } from "../../../../functions/core/ports/billing-repository";
import { type RefundDeps, refundCharge, settleOpenRefund } from "../../../../functions/core/refunds/refunds";
import { attempt, subscription } from "../../../support/billing-repository-contract";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { type RefundFate, RefundingGateway } from "../../../support/refunding-gateway";

// The refund protocol (README, Exactly once: refunds) on the memory repository: a refund claimed by its refund_id, its
// amount held on the charge before the call, settled by retrieve when its answer is lost, never made twice, never
// beyond the charge, and the ledger always equal to the gateway once the sweep has run.

const START = new Date("2027-03-01T10:00:00.000Z");
const TRANSACTION = "SBXTEST00120270301000001";
const CHARGE: ChargeAttempt = attempt(
  { subscription_id: "sub_refunds", period: 1, attempt: 0 },
  { status: "succeeded", lease_until: undefined, transaction_id: TRANSACTION, amount: "19.90" },
);

/** What a simulated crash throws: the work stops there, as a dying process's would. */
class Crash extends Error {}

type CrashPoint = "none" | "afterClaim" | "afterHold" | "afterCall";

async function setUp() {
  let now = START;
  const repository = new MemoryBillingRepository({ clock: { now: () => now } });
  await repository.createSubscription(subscription(CHARGE.subscription_id));
  await repository.claimAttempt(CHARGE);
  const gateway = new RefundingGateway();
  gateway.sale(TRANSACTION, CHARGE.amount);
  const deps: RefundDeps = {
    repository,
    gateway,
    clock: { now: () => now },
    policy: DEFAULT_CHARGE_POLICY,
  };
  return {
    repository,
    gateway,
    deps,
    /** Moves past every lease, as the next sweep would find them. */
    later: () => {
      now = new Date(now.getTime() + DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
    },
  };
}

/** The deps of one request that dies at `point` (its repository and gateway stop working from there). */
function crashingAt(point: CrashPoint, deps: RefundDeps): RefundDeps {
  if (point === "none") return deps;
  const { repository, gateway } = deps;
  const crashing: BillingRepository = {
    ...bound(repository),
    async createRefund(refund) {
      const result = await repository.createRefund(refund);
      if (point === "afterClaim") throw new Crash();
      return result;
    },
    async updateAttempt(key, update) {
      const result = await repository.updateAttempt(key, update);
      if (point === "afterHold" && result && update.set.refunds !== undefined) throw new Crash();
      return result;
    },
  };
  return {
    ...deps,
    repository: crashing,
    gateway: {
      findRefund: (refund) => gateway.findRefund(refund),
      async refund(request) {
        const outcome = await gateway.refund(request);
        if (point === "afterCall") throw new Crash();
        return outcome;
      },
    },
  };
}

/** The repository's methods bound to it, so that a spread keeps working. */
function bound(repository: BillingRepository): BillingRepository {
  const methods: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(repository))) {
    const value = (repository as unknown as Record<string, unknown>)[name];
    if (typeof value === "function" && name !== "constructor") methods[name] = value.bind(repository);
  }
  return methods as unknown as BillingRepository;
}

/** Every open refund settled by the sweep, until none is left (at most `rounds` sweeps). */
async function sweepUntilSettled(setup: Awaited<ReturnType<typeof setUp>>, rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    setup.later();
    let open = 0;
    for await (const page of setup.repository.listOpenRefunds(setup.deps.clock.now())) {
      for (const refund of page) {
        open += 1;
        await settleOpenRefund(refund, setup.deps);
      }
    }
    if (open === 0) return;
  }
}

/** The ledger's view: succeeded refunds and what the charge counts, in cents. */
async function ledgerOf(repository: MemoryBillingRepository) {
  const refunds = await repository.listRefunds(CHARGE.subscription_id);
  const charge = await repository.getAttempt(CHARGE);
  return {
    succeeded: refunds.filter((refund) => refund.status === "succeeded"),
    open: refunds.filter((refund) => refund.status === "pending" || refund.status === "unknown"),
    refundedCents: toCents(charge?.refunded_amount ?? "0"),
    refunds: charge?.refunds ?? {},
  };
}

const sumCents = (refunds: readonly { readonly amount: string }[]) =>
  refunds.reduce((sum, refund) => sum + toCents(refund.amount), 0);

const refund = (id: string, amount?: string) => ({
  charge: CHARGE,
  refund_id: id,
  reason: "requested_by_customer",
  ...(amount === undefined ? {} : { amount }),
});

describe("refunds", () => {
  it("never refunds beyond the charge, however many refunds race", async () => {
    const setup = await setUp();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) => refundCharge(refund(`rf-${index}`, "1.50"), setup.deps)),
    );
    const kinds = outcomes.map((outcome) => outcome.kind);
    expect(kinds.filter((kind) => kind === "refunded")).toHaveLength(13);
    expect(kinds.filter((kind) => kind === "not_refundable")).toHaveLength(7);
    const ledger = await ledgerOf(setup.repository);
    expect(setup.gateway.refundedCents(TRANSACTION)).toBe(1950);
    expect(sumCents(ledger.succeeded)).toBe(1950);
    expect(ledger.refundedCents).toBe(1950);
    expect(ledger.open).toEqual([]);
  });

  it("settles a refund whose answer was lost by retrieve, and never sends it twice", async () => {
    const setup = await setUp();
    setup.gateway.fate = () => "lost";
    const first = await refundCharge(refund("rf-lost", "5.00"), setup.deps);
    expect(first).toMatchObject({ kind: "pending", refund: { status: "unknown" } });
    // The same request again meets its refund, pending.
    expect(await refundCharge(refund("rf-lost", "5.00"), setup.deps)).toMatchObject({ kind: "existing" });
    setup.gateway.fate = () => "ok";
    await sweepUntilSettled(setup);
    expect(setup.gateway.calls).toBe(1);
    const ledger = await ledgerOf(setup.repository);
    expect(ledger.succeeded.map((record) => record.refund_transaction_id)).toEqual(["RT-rf-lost"]);
    expect(ledger.refundedCents).toBe(500);
    // Recorded once as a credit note, with the refund's close.
    expect(setup.repository.written.map((event) => event.type)).toEqual([
      "refund.succeeded",
      "credit_note.created",
    ]);
  });

  it("answers a repeated refund of the whole balance with its refund, not with the balance it took", async () => {
    const setup = await setUp();
    setup.gateway.fate = () => "lost";
    expect(await refundCharge(refund("rf-all"), setup.deps)).toMatchObject({ kind: "pending" });
    expect(await refundCharge(refund("rf-all"), setup.deps)).toMatchObject({
      kind: "existing",
      refund: { refund_id: "rf-all", amount: "19.90" },
    });
    expect(await refundCharge(refund("rf-other"), setup.deps)).toEqual({
      kind: "not_refundable",
      reason: "nothing left to refund",
    });
  });

  it("sends again, under the same refund_id, a refund the gateway never made", async () => {
    const setup = await setUp();
    setup.gateway.fate = () => "failedBefore";
    expect(await refundCharge(refund("rf-500", "5.00"), setup.deps)).toMatchObject({ kind: "pending" });
    setup.gateway.fate = () => "ok";
    await sweepUntilSettled(setup);
    expect(setup.gateway.made.size).toBe(1);
    expect((await ledgerOf(setup.repository)).succeeded.map((record) => record.refund_id)).toEqual([
      "rf-500",
    ]);
  });

  it("gives a refused refund's amount back to the balance, once", async () => {
    const setup = await setUp();
    setup.gateway.fate = () => "declined";
    expect(await refundCharge(refund("rf-no"), setup.deps)).toMatchObject({ kind: "refused" });
    const ledger = await ledgerOf(setup.repository);
    expect(ledger.refundedCents).toBe(0);
    expect(ledger.refunds).toEqual({ "rf-no": "0" });
    expect(setup.repository.written.map((event) => event.type)).toEqual(["refund.failed"]);
    setup.gateway.fate = () => "ok";
    expect(await refundCharge(refund("rf-yes"), setup.deps)).toMatchObject({
      kind: "refunded",
      refund: { amount: "19.90" },
    });
  });

  it.each<CrashPoint>(["afterClaim", "afterHold", "afterCall"])(
    "finishes a refund whose request died %s: once",
    async (point) => {
      const setup = await setUp();
      await expect(refundCharge(refund("rf-crash", "7.00"), crashingAt(point, setup.deps))).rejects.toThrow(
        Crash,
      );
      await sweepUntilSettled(setup);
      const ledger = await ledgerOf(setup.repository);
      expect(ledger.succeeded.map((record) => record.refund_id)).toEqual(["rf-crash"]);
      expect(setup.gateway.made.size).toBe(1);
      expect(ledger.refundedCents).toBe(700);
      expect(ledger.open).toEqual([]);
    },
  );

  it("lets a request that stalled past its lease find its refund taken over by the sweep, and send nothing", async () => {
    const setup = await setUp();
    let resume = () => {};
    const stalled = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let claimed = () => {};
    const claim = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const slow: RefundDeps = {
      ...setup.deps,
      repository: {
        ...bound(setup.repository),
        async createRefund(record) {
          const result = await setup.repository.createRefund(record);
          claimed();
          await stalled;
          return result;
        },
      },
    };
    const request = refundCharge(refund("rf-slow", "4.00"), slow);
    await claim;
    await sweepUntilSettled(setup);
    resume();
    expect(await request).toMatchObject({ kind: "pending" });
    expect(setup.gateway.calls).toBe(1);
    const ledger = await ledgerOf(setup.repository);
    expect(ledger.succeeded.map((record) => record.refund_id)).toEqual(["rf-slow"]);
    expect(ledger.refundedCents).toBe(400);
  });

  it("keeps the ledger equal to the gateway over random refunds, retries, lost answers and crashes", async () => {
    const operation = fc.record({
      /** The intent: the same key is the same refund (a retry). */
      key: fc.integer({ min: 0, max: 7 }),
      cents: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
      fate: fc.constantFrom<RefundFate>("ok", "ok", "lost", "failedBefore", "declined"),
      crash: fc.constantFrom<CrashPoint>("none", "none", "afterClaim", "afterHold", "afterCall"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(operation, { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
        async (rounds) => {
          const setup = await setUp();
          for (const round of rounds) {
            const fates = new Map(round.map((op) => [`rf-${op.key}`, op.fate]));
            setup.gateway.fate = (call) => fates.get(call.id) ?? "ok";
            // One round's requests race; a crash ends only its own request.
            await Promise.all(
              round.map((op) => {
                const amount = op.cents === undefined ? undefined : (op.cents / 100).toFixed(2);
                return refundCharge(refund(`rf-${op.key}`, amount), crashingAt(op.crash, setup.deps)).catch(
                  (error: unknown) => {
                    if (!(error instanceof Crash)) throw error;
                  },
                );
              }),
            );
            // Some rounds are followed by a sweep that still meets faults.
            if (round.length % 2 === 0) await sweepUntilSettled(setup, 1);
          }
          setup.gateway.fate = () => "ok";
          await sweepUntilSettled(setup);

          const ledger = await ledgerOf(setup.repository);
          expect(ledger.open).toEqual([]);
          // The gateway's money equals the ledger's, refund for refund.
          expect(new Set(setup.gateway.made.keys())).toEqual(
            new Set(ledger.succeeded.map((r) => r.refund_id)),
          );
          expect(sumCents(ledger.succeeded)).toBe(setup.gateway.refundedCents(TRANSACTION));
          expect(ledger.refundedCents).toBe(sumCents(ledger.succeeded));
          expect(ledger.refundedCents).toBeLessThanOrEqual(toCents(CHARGE.amount));
          for (const made of ledger.succeeded) expect(ledger.refunds[made.refund_id]).toBe(made.amount);
        },
      ),
      { numRuns: 150 },
    );
  });
});
