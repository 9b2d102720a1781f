import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import { DEFAULT_INVOICING_POLICY } from "../../../../functions/core/base/documents";
import type { ChargeAttempt, Subscription } from "../../../../functions/core/base/model";
import { draftInvoice } from "../../../../functions/core/invoicing/document-drafts";
import { numberDocument } from "../../../../functions/core/invoicing/document-numbering";
import { closeLine, finalizeClosedLine } from "../../../../functions/core/invoicing/line-close";
import type { BillingRepository } from "../../../../functions/core/ports/billing-repository";
import { attempt, subscription } from "../../../support/billing-repository-contract";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";

// A paid line closes finalized as its invoice (README, Invoices: how numbers never skip): numbered from a gap-free
// sequence per prefix however the closes race, crash or lose to another closer.

const NOW = new Date("2030-02-01T00:01:00.000Z");
const SUBSCRIPTION: Subscription = subscription("sub-inv");

/** What a simulated crash throws: the work stops there, as a dying process's would. */
class Crash extends Error {}

async function setUp() {
  const repository = new MemoryBillingRepository({ clock: { now: () => NOW } });
  await repository.createSubscription(SUBSCRIPTION);
  const deps = { repository, clock: { now: () => NOW }, policy: DEFAULT_CHARGE_POLICY };
  const line = async (period: number): Promise<ChargeAttempt> => {
    const open = attempt({ subscription_id: SUBSCRIPTION.subscription_id, period, attempt: 0 });
    await repository.claimAttempt(open);
    return open;
  };
  const paid = (open: ChargeAttempt, on: BillingRepository = repository) =>
    closeLine(
      SUBSCRIPTION,
      open,
      { status: "succeeded", transaction_id: `T-${open.period}` },
      { ...deps, repository: on },
    );
  return { repository, deps, line, paid };
}

/** The invoice numbers the lines hold, by period. */
async function held(repository: BillingRepository): Promise<Record<number, string | undefined>> {
  const lines = await repository.listAttempts(SUBSCRIPTION.subscription_id);
  return Object.fromEntries(lines.map((line) => [line.period, line.invoice_number]));
}

/** Every listed invoice's number, oldest first, and that each is held by the line it names. */
async function listed(repository: BillingRepository) {
  const page = await repository.listInvoices({}, { limit: 100 });
  const lines = await held(repository);
  for (const invoice of page.documents) expect(lines[invoice.period]).toBe(invoice.number);
  return page.documents.map((invoice) => invoice.sequence).reverse();
}

const consecutive = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

describe("closing a paid line", () => {
  it("finalizes it as its invoice, numbered under the year's prefix, dated and totalled from the line", async () => {
    const { repository, line, paid } = await setUp();
    const closed = await paid(await line(1));
    expect(closed).toMatchObject({ status: "succeeded", invoice_number: "INV-2030-000001" });
    expect(await repository.getInvoice("INV-2030-000001")).toMatchObject({
      kind: "invoice",
      order_id: closed?.order_id,
      issue_date: "2030-02-01",
      issued_at: NOW.toISOString(),
      seller: DEFAULT_INVOICING_POLICY.seller,
      buyer: { name: "Ada Lovelace", email: "ada@example.com" },
      lines: [{ description: "Subscription", quantity: 1, unit_amount: "19.90", amount: "19.90" }],
      subtotal: "19.90",
      discount: "0.00",
      tax: [],
      total: "19.90",
      transaction_id: "T-1",
    });
    expect(repository.written.map((event) => event.type)).toEqual(["charge.succeeded", "invoice.finalized"]);
  });

  it("numbers 25 lines closing at once 1 to 25, one each, taking turns", async () => {
    const { repository, line, paid } = await setUp();
    const lines = await Promise.all(consecutive(25).map((period) => line(period)));
    await Promise.all(lines.map((open) => paid(open)));
    expect(await listed(repository)).toEqual(consecutive(25));
    expect(new Set(Object.values(await held(repository))).size).toBe(25);
  });

  it("numbers 12 lines racing outside any turn (other processes) 1 to 12, one each", async () => {
    const { repository, line } = await setUp();
    const lines = await Promise.all(consecutive(12).map((period) => line(period)));
    const issue = { policy: DEFAULT_INVOICING_POLICY, on: NOW, at: NOW };
    const numbered = await Promise.all(
      lines.map((open) =>
        numberDocument(
          "invoice",
          "INV-2030",
          open.order_id,
          (sequence) => draftInvoice(SUBSCRIPTION, open, issue, sequence),
          {
            repository,
          },
        ),
      ),
    );
    // Each close then writes its number (the numbering may have written some already: the same one).
    for (const [index, open] of lines.entries()) {
      const number = numbered[index]?.number;
      const now = await repository.getAttempt(open);
      expect(now?.invoice_number ?? number).toBe(number);
      await repository.updateAttempt(open, {
        expect: { status: "pending", lease_until: open.lease_until, invoice_number: number },
        set: { invoice_number: number },
      });
    }
    expect(await listed(repository)).toEqual(consecutive(12));
  });

  it("gives a number to a line whose close died after its numbering, and its next close keeps it", async () => {
    const { repository, line, paid } = await setUp();
    const first = await line(1);
    const shared: BillingRepository = repository;
    const dying: BillingRepository = {
      ...shared,
      async updateAttempt() {
        throw new Crash();
      },
    };
    await expect(paid(first, dying)).rejects.toBeInstanceOf(Crash);
    expect(await held(repository)).toEqual({ 1: undefined });
    // The next numbering finds number 1 unheld and gives it to its line before taking 2.
    await paid(await line(2));
    expect(await held(repository)).toEqual({ 1: "INV-2030-000001", 2: "INV-2030-000002" });
    expect(await paid(first)).toMatchObject({ invoice_number: "INV-2030-000001" });
    expect(await listed(repository)).toEqual([1, 2]);
    expect(repository.written.filter((event) => event.type === "invoice.finalized")).toHaveLength(2);
  });

  it("announces the invoice of a line closed paid whose finalizing write died, when the next numbering numbers it", async () => {
    const { repository, deps, line, paid } = await setUp();
    // A gateway-run charge: recorded closed paid, its invoice finalized by a second write.
    const recorded: ChargeAttempt = {
      ...attempt({ subscription_id: SUBSCRIPTION.subscription_id, period: 1, attempt: 0 }),
      status: "succeeded",
      transaction_id: "T-1",
    };
    await repository.claimAttempt(recorded);
    const shared: BillingRepository = repository;
    const dying: BillingRepository = {
      ...shared,
      async updateAttempt() {
        throw new Crash();
      },
    };
    await expect(
      finalizeClosedLine(SUBSCRIPTION, recorded, { ...deps, repository: dying }),
    ).rejects.toBeInstanceOf(Crash);
    await paid(await line(2));
    expect(await held(repository)).toEqual({ 1: "INV-2030-000001", 2: "INV-2030-000002" });
    // Its second write comes again (the gateway's notice repeated): the line is numbered, nothing more is written.
    const numbered = await repository.getAttempt(recorded);
    if (numbered === undefined) throw new Error("the line is gone");
    await finalizeClosedLine(SUBSCRIPTION, numbered, deps);
    const finalized = repository.written.flatMap((event) =>
      event.type === "invoice.finalized" ? [event.invoice_number] : [],
    );
    expect(finalized.sort()).toEqual(["INV-2030-000001", "INV-2030-000002"]);
  });

  it("voids the number of a close that lost to another closer, and the next numbering takes it over", async () => {
    const { repository, line, paid } = await setUp();
    const stale = await line(1);
    await paid(stale);
    await paid(await line(2));
    // A second closer of line 1, working from the line as it read it before the first close: numbered 3, then lost.
    expect(await paid(stale)).toBeUndefined();
    expect(await repository.getInvoice("INV-2030-000003")).toBeUndefined();
    await paid(await line(3));
    expect(await held(repository)).toEqual({
      1: "INV-2030-000001",
      2: "INV-2030-000002",
      3: "INV-2030-000003",
    });
    expect(await listed(repository)).toEqual([1, 2, 3]);
  });

  it("never skips or repeats a number over random crashes, stale closers and races", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ crash: fc.nat(6), again: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        async (plan) => {
          const { repository, line, paid } = await setUp();
          const lines = await Promise.all(plan.map((_, index) => line(index + 1)));
          // Each close may die after its n-th repository call; a second closer from the stale read may follow.
          await Promise.all(
            lines.map(async (open, index) => {
              const { crash, again } = plan[index] ?? { crash: 0, again: false };
              await paid(open, crash === 0 ? repository : dyingAfter(repository, crash)).catch(
                () => undefined,
              );
              if (again) await paid(open).catch(() => undefined);
            }),
          );
          // Whatever died is closed later (the sweep), from the line as it stands then.
          for (const open of lines) {
            const now = await repository.getAttempt(open);
            if (now?.status === "pending") await paid(now);
          }
          expect(await listed(repository)).toEqual(consecutive(lines.length));
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  });
});

/** The repository of a request that dies after `calls` of its calls (each call's effect kept, as a crash's). */
function dyingAfter(repository: BillingRepository, calls: number): BillingRepository {
  let left = calls;
  const dying =
    (call: (...args: never[]) => Promise<unknown>) =>
    async (...args: never[]) => {
      if (left <= 0) throw new Crash();
      left -= 1;
      const result = await call(...args);
      if (left <= 0) throw new Crash();
      return result;
    };
  return Object.fromEntries(
    Object.entries(repository).map(([name, value]) => [
      name,
      typeof value === "function" ? dying(value) : value,
    ]),
  ) as unknown as BillingRepository;
}
