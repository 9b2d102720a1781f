import { describe, expect, it } from "vitest";
import {
  type BillingEvent,
  closedChargeEvent,
  closedRefundEvent,
  type OutboxEvent,
  placedByWrite,
} from "../../functions/core/base/events";
import type {
  AttemptKey,
  ChargeAttempt,
  RefundRecord,
  Subscription,
  TokenRecord,
} from "../../functions/core/base/model";
import { orderIdFor } from "../../functions/core/base/order-id";
import { EVERY_OUTBOX } from "../../functions/core/delivery/event-delivery";
import {
  type BillingRepository,
  InvalidCursorError,
  type PaidPlan,
  type SubscriptionQuery,
} from "../../functions/core/ports/billing-repository";
import type { Clock } from "../../functions/core/ports/clock";

// What every BillingRepository must do, whatever stores it: the DynamoDB repository (on dynalite, or DynamoDB Local
// by BILLING_DYNAMODB_ENDPOINT) and the in-memory one run this same suite. Storage layout, index upkeep and request
// counts are the DynamoDB tests' own.

export interface ContractOptions {
  /** Entries per page of listDue and listOpenAttempts. */
  readonly pageSize?: number;
  /** The clock that judges a de-duplication record's expiry. */
  readonly clock?: Clock;
}

/** A repository over empty storage. */
export type FreshRepository = (options?: ContractOptions) => Promise<BillingRepository>;

export const CREATED = "2030-01-01T00:00:00.000Z";
const LATER = "2030-01-02T00:00:00.000Z";
export const minutes = (iso: string, delta: number) =>
  new Date(Date.parse(iso) + delta * 60_000).toISOString();

export function subscription(id: string, overrides: Partial<Subscription> = {}): Subscription {
  return {
    subscription_id: id,
    status: "active",
    billing_mode: "token",
    customer: { name: "Ada Lovelace", email: "ada@example.com" },
    plan: { amount: "19.90", currency: "USD", interval_months: 1 },
    anchor_at: CREATED,
    period: 1,
    attempt: 0,
    next_charge_at: "2030-02-01T00:00:00.000Z",
    token_id: "tok_test_1",
    card: { first4: "4111", last4: "1111" },
    created_at: CREATED,
    updated_at: CREATED,
    ...overrides,
  };
}

export function attempt(key: AttemptKey, overrides: Partial<ChargeAttempt> = {}): ChargeAttempt {
  return {
    ...key,
    order_id: orderIdFor(key),
    amount: "19.90",
    currency: "USD",
    status: "pending",
    lease_until: "2030-02-01T00:05:00.000Z",
    created_at: "2030-02-01T00:00:00.000Z",
    updated_at: "2030-02-01T00:00:00.000Z",
    ...overrides,
  };
}

export function token(id: string, overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    token_id: id,
    subscription_id: "sub-t",
    card: { first4: "4111", last4: "1111" },
    expiry: "203012",
    status: "active",
    created_at: CREATED,
    updated_at: CREATED,
    ...overrides,
  };
}

export function refund(id: string, overrides: Partial<RefundRecord> = {}): RefundRecord {
  return {
    refund_id: id,
    subscription_id: "sub-r",
    order_id: "sub-r-1-0",
    period: 1,
    attempt: 0,
    amount: "5.00",
    currency: "USD",
    reason: "requested_by_customer",
    status: "pending",
    created_at: CREATED,
    updated_at: CREATED,
    ...overrides,
  };
}

export async function collect<T>(pages: AsyncIterable<readonly T[]>): Promise<{ pages: T[][]; items: T[] }> {
  const all: T[][] = [];
  for await (const page of pages) all.push([...page]);
  return { pages: all, items: all.flat() };
}

export function describeBillingRepositoryContract(fresh: FreshRepository): void {
  describe("subscriptions", () => {
    it("round-trips a subscription, dropping undefined fields", async () => {
      const repository = await fresh();
      const stored = subscription("sub-rt", {
        customer: { name: "Ada", email: "ada@example.com", phone: undefined },
      });
      expect(await repository.createSubscription(stored)).toBe(true);
      const read = await repository.getSubscription("sub-rt");
      expect(read).toEqual(stored);
      expect(Object.keys(read?.customer ?? {})).not.toContain("phone");
      expect(await repository.getSubscription("sub-none")).toBeUndefined();
    });

    it("refuses to create a subscription twice and keeps the first", async () => {
      const repository = await fresh();
      expect(await repository.createSubscription(subscription("sub-twice"))).toBe(true);
      expect(await repository.createSubscription(subscription("sub-twice", { period: 7 }))).toBe(false);
      expect((await repository.getSubscription("sub-twice"))?.period).toBe(1);
    });

    it("applies an update only when every expected field still holds", async () => {
      const repository = await fresh();
      await repository.createSubscription(subscription("sub-cas"));
      const before = await repository.getSubscription("sub-cas");

      const unmet = await repository.updateSubscription("sub-cas", {
        expect: { period: 1, attempt: 3 },
        set: { attempt: 4, status: "past_due", updated_at: "2030-02-01T00:00:00.000Z" },
      });
      expect(unmet).toBe(false);
      expect(await repository.getSubscription("sub-cas")).toEqual(before);

      const met = await repository.updateSubscription("sub-cas", {
        expect: { period: 1, attempt: 0, status: "active" },
        set: {
          period: 2,
          attempt: 0,
          dunning: { step: 1, reason: "declined", rescode: undefined, since: "2030-02-01T00:00:00.000Z" },
          updated_at: "2030-02-01T00:00:00.000Z",
        },
      });
      expect(met).toBe(true);
      expect(await repository.getSubscription("sub-cas")).toEqual({
        ...before,
        period: 2,
        dunning: { step: 1, reason: "declined", since: "2030-02-01T00:00:00.000Z" },
        updated_at: "2030-02-01T00:00:00.000Z",
      });
      expect(
        await repository.updateSubscription("sub-missing", { expect: {}, set: { updated_at: CREATED } }),
      ).toBe(false);
    });

    it("counts revisions: 0 matches a subscription written without one, a revision read before a write fails", async () => {
      const repository = await fresh();
      await repository.createSubscription(subscription("sub-rev"));
      const write = (revision: number) =>
        repository.updateSubscription("sub-rev", {
          expect: { revision },
          set: { revision: revision + 1, updated_at: LATER },
        });
      expect(await write(1)).toBe(false);
      expect(await write(0)).toBe(true);
      expect(await write(0)).toBe(false);
      expect(await write(1)).toBe(true);
      expect(await write(1)).toBe(false);
      expect((await repository.getSubscription("sub-rev"))?.revision).toBe(2);
    });
    it("removes fields", async () => {
      const repository = await fresh();
      await repository.createSubscription(
        subscription("sub-rm", {
          status: "past_due",
          status_reason: "payment_declined",
          dunning: { step: 2, reason: "declined", since: CREATED },
        }),
      );
      const removed = await repository.updateSubscription("sub-rm", {
        expect: { status: "past_due" },
        set: { status: "canceled", updated_at: "2030-02-02T00:00:00.000Z" },
        remove: ["dunning", "status_reason", "next_charge_at"],
      });
      expect(removed).toBe(true);
      const read = await repository.getSubscription("sub-rm");
      expect(read?.status).toBe("canceled");
      expect(read).not.toHaveProperty("dunning");
      expect(read).not.toHaveProperty("status_reason");
      expect(read).not.toHaveProperty("next_charge_at");
    });
  });

  describe("listDue", () => {
    const UNTIL = new Date("2030-03-10T09:30:00.000Z");

    it("lists every due subscription exactly once with its period; future and canceled ones never", async () => {
      const repository = await fresh();
      const due = new Map<string, number>();
      for (let i = 0; i < 30; i++) {
        const id = `sub-due-${i}`;
        // Hours 00..09 of the day, plus one the day before.
        const nextChargeAt =
          i === 0 ? "2030-03-09T15:00:00.000Z" : minutes("2030-03-10T00:00:00.000Z", i * 19);
        await repository.createSubscription(subscription(id, { period: i, next_charge_at: nextChargeAt }));
        due.set(id, i);
      }
      // The same instant as 09:00Z written with an offset: compared as instants, not as text.
      await repository.createSubscription(
        subscription("sub-offset", { next_charge_at: "2030-03-10T18:00:00+09:00" }),
      );
      due.set("sub-offset", 1);
      await repository.createSubscription(
        subscription("sub-future-1", { next_charge_at: "2030-03-10T09:30:00.001Z" }),
      );
      await repository.createSubscription(
        subscription("sub-future-2", { next_charge_at: "2030-03-11T09:00:00.000Z" }),
      );
      await repository.createSubscription(
        subscription("sub-canceled", { next_charge_at: "2030-03-10T01:00:00.000Z" }),
      );
      await repository.updateSubscription("sub-canceled", {
        expect: {},
        set: { status: "canceled", updated_at: CREATED },
        remove: ["next_charge_at"],
      });

      const { items } = await collect(repository.listDue(UNTIL));
      expect(items).toHaveLength(due.size);
      expect(new Map(items.map((entry) => [entry.subscription_id, entry.period]))).toEqual(due);
    });

    it("pages through more entries than one page holds", async () => {
      const repository = await fresh({ pageSize: 3 });
      const ids = Array.from({ length: 25 }, (_, i) => `sub-page-${i}`);
      for (const id of ids) {
        await repository.createSubscription(subscription(id, { next_charge_at: "2030-03-10T09:00:00.000Z" }));
      }
      const { pages, items } = await collect(repository.listDue(UNTIL));
      expect(pages.every((page) => page.length >= 1 && page.length <= 3)).toBe(true);
      expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(25 / 3));
      expect(items.map((entry) => entry.subscription_id).sort()).toEqual([...ids].sort());
    });
  });

  describe("listExpiredCheckouts", () => {
    const pendingCheckout = (id: string, expiresAt: string) =>
      subscription(id, {
        status: "pending",
        period: 0,
        next_charge_at: undefined,
        token_id: undefined,
        card: undefined,
        checkout_expires_at: expiresAt,
      });

    it("lists pending checkouts whose end passed, whole, and no longer once they leave pending", async () => {
      const repository = await fresh({ pageSize: 2 });
      const ended = ["sub-co-1", "sub-co-2", "sub-co-3"];
      for (const [i, id] of ended.entries())
        await repository.createSubscription(pendingCheckout(id, minutes("2030-01-01T12:00:00.000Z", i)));
      await repository.createSubscription(pendingCheckout("sub-co-later", "2030-01-01T13:00:00.000Z"));
      // A card sign-up pending its outcome has no end; an active subscription is no checkout to close.
      await repository.createSubscription(subscription("sub-co-card", { status: "pending", period: 0 }));
      await repository.createSubscription(subscription("sub-co-active", { checkout_expires_at: CREATED }));
      const expiredBefore = async (iso: string) =>
        (await collect(repository.listExpiredCheckouts(new Date(iso)))).items;

      const listed = await expiredBefore("2030-01-01T12:30:00.000Z");
      expect(listed.map((checkout) => checkout.subscription_id).sort()).toEqual(ended);
      expect(listed.find((checkout) => checkout.subscription_id === "sub-co-1")).toEqual(
        pendingCheckout("sub-co-1", "2030-01-01T12:00:00.000Z"),
      );

      // Paid (active) or closed (canceled): out of the listing, whatever its end.
      for (const [id, status] of [
        ["sub-co-1", "active"],
        ["sub-co-2", "canceled"],
      ] as const)
        await repository.updateSubscription(id, { expect: {}, set: { status, updated_at: LATER } });
      // A write that keeps it pending keeps it listed.
      await repository.updateSubscription("sub-co-3", { expect: {}, set: { attempt: 1, updated_at: LATER } });
      expect((await expiredBefore("2030-01-02T00:00:00.000Z")).map((c) => c.subscription_id).sort()).toEqual([
        "sub-co-3",
        "sub-co-later",
      ]);
    });
  });

  describe("listPendingCredits", () => {
    const credit = (id: string, leaseUntil: string) => ({
      refund_id: `rf_${id}`,
      order_id: `${id}-0-0`,
      amount: "5.00",
      prorated_from: "10.00",
      lease_until: leaseUntil,
    });
    const creditedBefore = async (repository: BillingRepository, iso: string) =>
      (await collect(repository.listPendingCredits(new Date(iso)))).items
        .map((s) => s.subscription_id)
        .sort();

    it("lists subscriptions whose pending credit's lease passed, through status changes, until it is cleared", async () => {
      const repository = await fresh({ pageSize: 2 });
      for (const id of ["sub-cr-1", "sub-cr-2", "sub-cr-3", "sub-cr-later", "sub-cr-none"])
        await repository.createSubscription(subscription(id));
      for (const [i, id] of ["sub-cr-1", "sub-cr-2", "sub-cr-3"].entries())
        expect(
          await repository.updateSubscription(id, {
            expect: { "pending_credit.refund_id": null },
            set: { pending_credit: credit(id, minutes("2030-01-01T12:00:00.000Z", i)), updated_at: LATER },
          }),
        ).toBe(true);
      await repository.updateSubscription("sub-cr-later", {
        expect: {},
        set: { pending_credit: credit("sub-cr-later", "2030-01-01T13:00:00.000Z"), updated_at: LATER },
      });
      // One credit pending at a time: a second expecting none finds it.
      expect(
        await repository.updateSubscription("sub-cr-1", {
          expect: { "pending_credit.refund_id": null },
          set: { pending_credit: credit("sub-cr-x", "2030-01-01T12:00:00.000Z") },
        }),
      ).toBe(false);
      expect(await creditedBefore(repository, "2030-01-01T12:30:00.000Z")).toEqual([
        "sub-cr-1",
        "sub-cr-2",
        "sub-cr-3",
      ]);
      const [listed] = (await collect(repository.listPendingCredits(new Date("2030-01-01T12:01:00.000Z"))))
        .items;
      expect(listed?.pending_credit).toEqual(credit("sub-cr-1", "2030-01-01T12:00:00.000Z"));

      // A status change of a running subscription keeps it listed; clearing the credit takes it out.
      await repository.updateSubscription("sub-cr-2", {
        expect: { status: "active" },
        set: { status: "past_due", updated_at: LATER },
      });
      expect(
        await repository.updateSubscription("sub-cr-1", {
          expect: { "pending_credit.refund_id": "rf_sub-cr-1" },
          set: { updated_at: LATER },
          remove: ["pending_credit"],
        }),
      ).toBe(true);
      expect(await creditedBefore(repository, "2030-01-02T00:00:00.000Z")).toEqual([
        "sub-cr-2",
        "sub-cr-3",
        "sub-cr-later",
      ]);
    });
  });

  describe("charge attempts", () => {
    const key = { subscription_id: "sub-a", period: 3, attempt: 0 };

    it("claims an attempt once; a second claim gets the existing attempt", async () => {
      const repository = await fresh();
      const first = attempt(key);
      expect(await repository.claimAttempt(first)).toEqual({ claimed: true });
      const second = await repository.claimAttempt(attempt(key, { lease_until: "2030-02-01T01:00:00.000Z" }));
      expect(second).toEqual({ claimed: false, existing: first });
      expect(await repository.getAttempt(key)).toEqual(first);
      expect(await repository.getAttempt({ ...key, attempt: 1 })).toBeUndefined();
    });

    it("updates an attempt only with the expected status and lease", async () => {
      const repository = await fresh();
      const claimed = attempt(key);
      await repository.claimAttempt(claimed);
      const set = {
        status: "unknown" as const,
        lease_until: "2030-02-01T00:10:00.000Z",
        updated_at: CREATED,
      };

      expect(
        await repository.updateAttempt(key, {
          expect: { status: "retry", lease_until: claimed.lease_until },
          set,
        }),
      ).toBe(false);
      expect(
        await repository.updateAttempt(key, {
          expect: { status: "pending", lease_until: "2030-02-01T00:06:00.000Z" },
          set,
        }),
      ).toBe(false);
      expect(await repository.updateAttempt(key, { expect: { status: "pending" }, set })).toBe(false);
      expect(await repository.getAttempt(key)).toEqual(claimed);

      expect(
        await repository.updateAttempt(key, {
          expect: { status: "pending", lease_until: claimed.lease_until },
          set,
        }),
      ).toBe(true);
      expect(await repository.getAttempt(key)).toEqual({ ...claimed, ...set });
      expect(
        await repository.updateAttempt({ ...key, attempt: 9 }, { expect: { status: "pending" }, set }),
      ).toBe(false);
    });

    it("lists open attempts whose lease ended before the cutoff, and no longer once closed or extended", async () => {
      const repository = await fresh({ pageSize: 2 });
      const cutoff = "2030-02-01T12:00:00.000Z";
      const expired: ChargeAttempt[] = [];
      for (let i = 0; i < 12; i++) {
        const expiredAttempt = attempt(
          { subscription_id: `sub-open-${i}`, period: 1, attempt: 0 },
          {
            status: i % 3 === 0 ? "retry" : i % 3 === 1 ? "unknown" : "pending",
            lease_until: minutes(cutoff, -1 - i),
          },
        );
        await repository.claimAttempt(expiredAttempt);
        expired.push(expiredAttempt);
      }
      await repository.claimAttempt(
        attempt({ ...key, subscription_id: "sub-later" }, { lease_until: minutes(cutoff, 1) }),
      );
      await repository.claimAttempt(
        attempt({ ...key, subscription_id: "sub-at-cutoff" }, { lease_until: cutoff }),
      );
      await repository.claimAttempt(
        attempt({ ...key, subscription_id: "sub-closed" }, { status: "succeeded", lease_until: undefined }),
      );
      const listed = async () =>
        (await collect(repository.listOpenAttempts(new Date(cutoff)))).items
          .map((a) => a.subscription_id)
          .sort();
      expect(await listed()).toEqual(expired.map((a) => a.subscription_id).sort());
      const { pages, items } = await collect(repository.listOpenAttempts(new Date(cutoff)));
      expect(items).toEqual(expect.arrayContaining(expired));
      expect(pages.every((page) => page.length <= 2)).toBe(true);

      const [toClose, toExtend] = expired;
      if (!toClose || !toExtend) throw new Error("fixture");
      const closed = await repository.updateAttempt(toClose, {
        expect: { status: toClose.status, lease_until: toClose.lease_until },
        set: { status: "succeeded", transaction_id: "txn-1", updated_at: cutoff },
        remove: ["lease_until"],
      });
      expect(closed).toBe(true);
      expect(await repository.getAttempt(toClose)).not.toHaveProperty("lease_until");
      await repository.updateAttempt(toExtend, {
        expect: { status: toExtend.status, lease_until: toExtend.lease_until },
        set: { status: "pending", lease_until: minutes(cutoff, 5), updated_at: cutoff },
      });
      const remaining = expired
        .slice(2)
        .map((a) => a.subscription_id)
        .sort();
      expect(await listed()).toEqual(remaining);
      expect((await collect(repository.listOpenAttempts(new Date(minutes(cutoff, 6))))).items).toHaveLength(
        remaining.length + 3,
      );
    });

    it("lists a subscription's ledger oldest first across periods ≥ 10 and attempts", async () => {
      const repository = await fresh();
      await repository.createSubscription(subscription("sub-ledger"));
      const keys: AttemptKey[] = [];
      for (let period = 0; period <= 11; period++) {
        for (let n = 0; n <= 2; n++) keys.push({ subscription_id: "sub-ledger", period, attempt: n });
      }
      // Written out of order (17 is coprime with 36, so this visits every key once).
      const shuffled = keys.map((_, i) => keys[(i * 17) % keys.length]).filter((k) => k !== undefined);
      for (const k of shuffled)
        await repository.claimAttempt(attempt(k, { status: "declined", lease_until: undefined }));
      await repository.claimAttempt(attempt({ subscription_id: "sub-ledger-2", period: 0, attempt: 0 }));

      const ledger = await repository.listAttempts("sub-ledger");
      expect(ledger.map((a) => [a.period, a.attempt])).toEqual(keys.map((k) => [k.period, k.attempt]));
      expect(await repository.listAttempts("sub-none")).toEqual([]);
    });

    const charge = attempt(
      { subscription_id: "sub-r", period: 1, attempt: 0 },
      {
        status: "succeeded",
        lease_until: undefined,
        transaction_id: "txn-1",
      },
    );

    it("serialises the refunds' holds: revision 0 matches a never-refunded attempt, a stale revision fails", async () => {
      const repository = await fresh();
      await repository.claimAttempt(charge);
      const held = (revision: number, refunds: Record<string, string>, amount: string) => ({
        refunds,
        refunded_amount: amount,
        refund_revision: revision,
        updated_at: LATER,
      });
      const update = (expected: number, set: ReturnType<typeof held>) =>
        repository.updateAttempt(charge, { expect: { status: "succeeded", refund_revision: expected }, set });

      expect(await update(1, held(2, { "rf-a": "5.00" }, "5.00"))).toBe(false);
      expect(await update(0, held(1, { "rf-a": "5.00" }, "5.00"))).toBe(true);
      expect(await repository.getAttempt(charge)).toEqual({
        ...charge,
        ...held(1, { "rf-a": "5.00" }, "5.00"),
      });
      expect(await update(0, held(1, { "rf-b": "1.00" }, "1.00"))).toBe(false);
      const both = held(2, { "rf-a": "5.00", "rf-b": "14.90" }, "19.90");
      expect(await update(1, both)).toBe(true);
      expect(await update(1, held(2, {}, "0"))).toBe(false);
      expect(await repository.getAttempt(charge)).toEqual({ ...charge, ...both });
      expect(
        await repository.updateAttempt(charge, {
          expect: { status: "declined", refund_revision: 2 },
          set: held(3, {}, "0"),
        }),
      ).toBe(false);
    });

    it("records each chargeback status once: a compare-and-set on the dispute's revision", async () => {
      const repository = await fresh();
      await repository.claimAttempt(charge);
      const reported = {
        status: "REPORTED",
        history: [{ status: "REPORTED", received_at: "2030-03-02T00:00:00.000Z" }],
        revision: 1,
      };
      const deducted = {
        ...reported,
        status: "DEDUCTION",
        history: [...reported.history, { status: "DEDUCTION", received_at: "2030-03-09T00:00:00.000Z" }],
        revision: 2,
      };
      const mark = (revision: number, dispute: typeof reported) =>
        repository.updateAttempt(charge, {
          expect: { status: "succeeded", dispute_revision: revision },
          set: { disputed: true, dispute, updated_at: "2030-03-02T00:00:00.000Z" },
        });
      expect(await mark(0, reported)).toBe(true);
      expect(await mark(0, reported)).toBe(false);
      expect(await mark(1, deducted)).toBe(true);
      expect(await mark(1, deducted)).toBe(false);
      expect(await repository.getAttempt(charge)).toMatchObject({ disputed: true, dispute: deducted });
    });
  });

  describe("tokens", () => {
    it("round-trips a token", async () => {
      const repository = await fresh();
      const stored = token("tok_1", { expiry: undefined });
      await repository.putToken(stored);
      expect(await repository.getToken("tok_1")).toEqual(stored);
      expect(await repository.getToken("tok_none")).toBeUndefined();
    });

    it("stores the same token again harmlessly, and never revives a revoked one", async () => {
      const repository = await fresh();
      await repository.putToken(token("tok_2"));
      await repository.putToken(token("tok_2"));
      expect(await repository.getToken("tok_2")).toEqual(token("tok_2"));

      const revoked = { status: "revoked" as const, updated_at: LATER };
      expect(await repository.updateToken("tok_2", { expect: { status: "active" }, set: revoked })).toBe(
        true,
      );
      await repository.putToken(token("tok_2"));
      expect(await repository.getToken("tok_2")).toEqual({ ...token("tok_2"), ...revoked });
    });

    it("updates a token only with the expected status", async () => {
      const repository = await fresh();
      await repository.putToken(token("tok_3"));
      const expired = { status: "expired" as const, updated_at: LATER };

      expect(await repository.updateToken("tok_3", { expect: { status: "revoked" }, set: expired })).toBe(
        false,
      );
      expect(await repository.getToken("tok_3")).toEqual(token("tok_3"));
      expect(await repository.updateToken("tok_3", { expect: { status: "active" }, set: expired })).toBe(
        true,
      );
      expect(await repository.getToken("tok_3")).toEqual({ ...token("tok_3"), ...expired });
      expect(await repository.updateToken("tok_none", { expect: { status: "active" }, set: expired })).toBe(
        false,
      );
    });
  });

  describe("transactions", () => {
    it("credits a gateway transaction to one line: the first claim wins, the same line may claim again", async () => {
      const repository = await fresh();
      const line = { subscription_id: "sub-t1", period: 3, attempt: 0 };
      const other = { subscription_id: "sub-t2", period: 3, attempt: 0 };
      expect(await repository.claimTransaction("TX-1", line)).toEqual({ claimed: true });
      expect(await repository.claimTransaction("TX-1", line)).toEqual({ claimed: true });
      expect(await repository.claimTransaction("TX-1", other)).toEqual({ claimed: false, owner: line });
      expect(await repository.claimTransaction("TX-1", { ...line, period: 4 })).toEqual({
        claimed: false,
        owner: line,
      });
      expect(await repository.claimTransaction("TX-2", other)).toEqual({ claimed: true });
    });
  });

  describe("refunds", () => {
    it("creates a refund once; a second create gets the existing refund, whatever its subscription", async () => {
      const repository = await fresh();
      const first = refund("rf-1");
      expect(await repository.createRefund(first)).toEqual({ created: true });
      expect(await repository.createRefund(refund("rf-1", { amount: "9.00" }))).toEqual({
        created: false,
        existing: first,
      });
      expect(await repository.createRefund(refund("rf-1", { subscription_id: "sub-other" }))).toEqual({
        created: false,
        existing: first,
      });
      expect(await repository.listRefunds("sub-other")).toEqual([]);
    });

    it("updates a refund only with the expected status", async () => {
      const repository = await fresh();
      await repository.createRefund(refund("rf-2"));
      const done = {
        status: "succeeded" as const,
        refund_transaction_id: "txn-refund-1",
        rescode: "0000",
        updated_at: LATER,
      };

      expect(await repository.updateRefund("rf-2", { expect: { status: "unknown" }, set: done })).toBe(false);
      expect(await repository.listRefunds("sub-r")).toEqual([refund("rf-2")]);
      expect(await repository.updateRefund("rf-2", { expect: { status: "pending" }, set: done })).toBe(true);
      expect(await repository.listRefunds("sub-r")).toEqual([{ ...refund("rf-2"), ...done }]);
      expect(await repository.updateRefund("rf-none", { expect: { status: "pending" }, set: done })).toBe(
        false,
      );
    });

    it("takes an open refund over only with its lease, and lists open refunds whose lease ended", async () => {
      const repository = await fresh();
      const lease = "2030-01-01T00:05:00.000Z";
      await repository.createRefund(refund("rf-open", { lease_until: lease }));
      await repository.createRefund(refund("rf-later", { lease_until: "2030-01-01T01:00:00.000Z" }));
      await repository.createRefund(refund("rf-done", { status: "succeeded" }));
      const openBefore = async (iso: string) => {
        const ids: string[] = [];
        for await (const page of repository.listOpenRefunds(new Date(iso)))
          ids.push(...page.map((r) => r.refund_id));
        return ids.sort();
      };
      expect(await openBefore("2030-01-01T00:10:00.000Z")).toEqual(["rf-open"]);
      expect(await openBefore("2030-01-01T02:00:00.000Z")).toEqual(["rf-later", "rf-open"]);

      const takeOver = (expected: string) =>
        repository.updateRefund("rf-open", {
          expect: { status: "pending", lease_until: expected },
          set: { status: "unknown", lease_until: "2030-01-01T03:00:00.000Z", updated_at: LATER },
        });
      expect(await takeOver("2030-01-01T00:04:00.000Z")).toBe(false);
      expect(await takeOver(lease)).toBe(true);
      expect(await openBefore("2030-01-01T02:00:00.000Z")).toEqual(["rf-later"]);
      expect(await openBefore("2030-01-01T04:00:00.000Z")).toEqual(["rf-later", "rf-open"]);

      // Closing leaves the open listing; the lease goes with it.
      expect(
        await repository.updateRefund("rf-open", {
          expect: { status: "unknown", lease_until: "2030-01-01T03:00:00.000Z" },
          set: { status: "succeeded", updated_at: LATER },
          remove: ["lease_until"],
        }),
      ).toBe(true);
      expect(await openBefore("2030-01-01T04:00:00.000Z")).toEqual(["rf-later"]);
      expect((await repository.getRefund("rf-open"))?.lease_until).toBeUndefined();
      expect(await repository.getRefund("rf-none")).toBeUndefined();
    });

    it("lists only the subscription's refunds, oldest first, then by id", async () => {
      const repository = await fresh();
      const at = (hour: number) => `2030-01-01T${String(hour).padStart(2, "0")}:00:00.000Z`;
      const mine = [
        refund("rf-b", { created_at: at(1) }),
        refund("rf-c", { created_at: at(1) }),
        // 03:00Z written with an offset: sorted by the instant, not the text.
        refund("rf-a", { created_at: "2030-01-01T12:00:00+09:00" }),
        refund("rf-z", { created_at: at(10) }),
      ];
      for (const r of [...mine].reverse()) await repository.createRefund(r);
      await repository.createRefund(refund("rf-other", { subscription_id: "sub-r2", created_at: at(0) }));
      await repository.claimAttempt(attempt({ subscription_id: "sub-r", period: 1, attempt: 0 }));

      expect(await repository.listRefunds("sub-r")).toEqual(mine);
      expect((await repository.listRefunds("sub-r2")).map((r) => r.refund_id)).toEqual(["rf-other"]);
      expect(await repository.listRefunds("sub-none")).toEqual([]);
    });
  });

  describe("recordOnce and forgetOnce", () => {
    const future = new Date("2999-01-01T00:00:00.000Z");

    it("is true the first time a key is seen and false after", async () => {
      const repository = await fresh();
      expect(await repository.recordOnce("callback#ord-1#SALE", future)).toBe(true);
      expect(await repository.recordOnce("callback#ord-1#SALE", future)).toBe(false);
      expect(await repository.recordOnce("callback#ord-1#REFUND", future)).toBe(true);
    });

    it("treats an expired record that has not been deleted yet as absent", async () => {
      const repository = await fresh();
      const past = new Date(Date.now() - 3_600_000);
      expect(await repository.recordOnce("webhook-1", past)).toBe(true);
      expect(await repository.recordOnce("webhook-1", future)).toBe(true);
      expect(await repository.recordOnce("webhook-1", future)).toBe(false);
    });

    it("judges expiry by the given clock and never before expiresAt", async () => {
      let now = new Date("2030-01-01T00:00:00.000Z");
      const repository = await fresh({ clock: { now: () => now } });
      const expiresAt = new Date("2030-01-01T00:00:10.000Z");
      expect(await repository.recordOnce("k", expiresAt)).toBe(true);
      now = new Date("2030-01-01T00:00:10.500Z");
      expect(await repository.recordOnce("k", expiresAt)).toBe(false);
      now = new Date("2030-01-01T00:00:11.000Z");
      expect(await repository.recordOnce("k", expiresAt)).toBe(true);
    });

    it("takes keys of any length and characters", async () => {
      const repository = await fresh();
      const twoHundredBytes = "é".repeat(100);
      const keys = [`${"x".repeat(4999)}a`, `${"x".repeat(4999)}b`, twoHundredBytes, `${twoHundredBytes}é`];
      for (const key of [...keys, "", "a b#c\n/☃", "🎉".repeat(60)]) {
        expect(await repository.recordOnce(key, future)).toBe(true);
        expect(await repository.recordOnce(key, future)).toBe(false);
      }
    });

    it("refuses an invalid expiry", async () => {
      const repository = await fresh();
      await expect(repository.recordOnce("k", new Date(Number.NaN))).rejects.toThrow(RangeError);
    });

    it("forgets a record so that the key is taken again; forgetting an unknown key is harmless", async () => {
      const repository = await fresh();
      const expires = new Date(Date.now() + 60_000);
      expect(await repository.recordOnce("delivery-1", expires)).toBe(true);
      expect(await repository.recordOnce("delivery-1", expires)).toBe(false);
      await repository.forgetOnce("delivery-1");
      expect(await repository.recordOnce("delivery-1", expires)).toBe(true);
      await repository.forgetOnce("never-recorded");
    });
  });

  describe("outboxes", () => {
    const [canceled, pastDue] = placedByWrite(subscription("sub-ob"), [
      { type: "subscription.canceled", subscription_id: "sub-ob", reason: "canceled_by_merchant" },
      { type: "subscription.past_due", subscription_id: "sub-ob", reason: "payment_declined" },
    ]) as [BillingEvent, BillingEvent];
    const pending = async (repository: BillingRepository, before = EVERY_OUTBOX) =>
      (await collect(repository.listPendingOutboxes(before))).items;

    it("keeps a write's events with the write, each with its own id, and none of a write that did not apply", async () => {
      const repository = await fresh();
      await repository.createSubscription(subscription("sub-ob"));
      expect(await pending(repository)).toEqual([]);
      const lost = await repository.updateSubscription("sub-ob", {
        expect: { period: 9 },
        set: { status: "canceled", updated_at: LATER },
        events: [canceled],
      });
      expect(lost).toBe(false);
      expect(await pending(repository)).toEqual([]);

      const applied = await repository.updateSubscription("sub-ob", {
        expect: { period: 1 },
        set: { status: "past_due", updated_at: LATER },
        events: [pastDue, canceled],
      });
      expect(applied).toBe(true);
      const [ref] = await pending(repository);
      if (ref === undefined) throw new Error("no pending outbox");
      const events = await repository.readOutbox(ref);
      expect(events).toEqual([
        { ...pastDue, event_id: expect.any(String), occurred_at: LATER },
        { ...canceled, event_id: expect.any(String), occurred_at: LATER },
      ]);
      expect(new Set(events.map((event) => event.event_id)).size).toBe(2);
      expect((await repository.getSubscription("sub-ob"))?.status).toBe("past_due");
    });

    it("keeps an attempt's events in its own outbox", async () => {
      const repository = await fresh();
      const key = { subscription_id: "sub-ob", period: 1, attempt: 0 };
      await repository.claimAttempt(attempt(key));
      const closed = await repository.updateAttempt(key, {
        expect: { status: "pending", lease_until: attempt(key).lease_until },
        set: { status: "succeeded", updated_at: LATER },
        remove: ["lease_until"],
        events: [closedChargeEvent(attempt(key, { status: "succeeded" }), subscription("sub-ob"))],
      });
      expect(closed).toBe(true);
      const refs = await pending(repository);
      expect(refs).toHaveLength(1);
      expect((await repository.readOutbox(refs[0] ?? "")).map((event) => event.type)).toEqual([
        "charge.succeeded",
      ]);
      expect(await repository.getAttempt(key)).toMatchObject({ status: "succeeded" });
    });

    it("keeps a refund's events in its own outbox, and none of a close that did not apply", async () => {
      const repository = await fresh();
      const pendingRefund = refund("rf-ob");
      await repository.createRefund(pendingRefund);
      const succeeded = closedRefundEvent(
        { ...pendingRefund, status: "succeeded", refund_transaction_id: "rt-1" },
        subscription(pendingRefund.subscription_id),
      );
      const stale = await repository.updateRefund("rf-ob", {
        expect: { status: "unknown" },
        set: { status: "succeeded", updated_at: LATER },
        events: [succeeded],
      });
      expect(stale).toBe(false);
      expect(await pending(repository)).toEqual([]);
      await repository.updateRefund("rf-ob", {
        expect: { status: "pending" },
        set: { status: "succeeded", updated_at: LATER },
        events: [succeeded],
      });
      const refs = await pending(repository);
      expect(refs).toHaveLength(1);
      expect(await repository.readOutbox(refs[0] ?? "")).toEqual([
        { ...succeeded, event_id: expect.any(String), occurred_at: LATER },
      ]);
    });

    it("lists an outbox by its oldest pending event, and forgets it once every event is delivered", async () => {
      const repository = await fresh();
      await repository.createSubscription(subscription("sub-ob"));
      const write = (at: string, events: readonly BillingEvent[]) =>
        repository.updateSubscription("sub-ob", { expect: {}, set: { updated_at: at }, events });
      await write(LATER, [pastDue]);
      await write(minutes(LATER, 10), [canceled]);
      expect(await pending(repository, new Date(minutes(LATER, -1)))).toEqual([]);
      const [ref] = await pending(repository, new Date(LATER));
      if (ref === undefined) throw new Error("no pending outbox");
      const [first, second] = await repository.readOutbox(ref);
      expect([first?.type, second?.type]).toEqual(["subscription.past_due", "subscription.canceled"]);

      await repository.markDelivered(ref, [first?.event_id ?? "", "unknown-id"]);
      expect(await repository.readOutbox(ref)).toEqual([second]);
      expect(await pending(repository, new Date(minutes(LATER, 5)))).toEqual([]);
      expect(await pending(repository, new Date(minutes(LATER, 10)))).toEqual([ref]);

      await repository.markDelivered(ref, [second?.event_id ?? ""]);
      expect(await repository.readOutbox(ref)).toEqual([]);
      expect(await pending(repository)).toEqual([]);
      await repository.markDelivered(ref, [second?.event_id ?? ""]);
    });

    it("marks delivered against the outbox as the caller read it, and reads it again when it changed since", async () => {
      const repository = await fresh();
      await repository.createSubscription(subscription("sub-ob2"));
      const write = (at: string, events: readonly BillingEvent[]) =>
        repository.updateSubscription("sub-ob2", { expect: {}, set: { updated_at: at }, events });
      await write(LATER, [pastDue]);
      const [ref] = await pending(repository);
      if (ref === undefined) throw new Error("no pending outbox");
      const asRead = await repository.readOutbox(ref);
      const [first] = asRead;

      // A write appended an event after the read: the outbox as read is stale, and the later event stays.
      await write(minutes(LATER, 1), [canceled]);
      await repository.markDelivered(ref, [first?.event_id ?? ""], asRead);
      const left = await repository.readOutbox(ref);
      expect(left.map((event) => event.type)).toEqual(["subscription.canceled"]);

      await repository.markDelivered(ref, [left[0]?.event_id ?? ""], left);
      expect(await repository.readOutbox(ref)).toEqual([]);
      expect(await pending(repository)).toEqual([]);
      // Marking again from a read that no longer holds: nothing left to take, nothing written.
      await repository.markDelivered(ref, [left[0]?.event_id ?? ""], left);
      expect(await repository.readOutbox(ref)).toEqual([]);
    });
  });

  describe("listing subscriptions", () => {
    /** Every subscription of the query, page by page; each page at most `limit`, none listed twice. */
    async function everyPage(repository: BillingRepository, query: SubscriptionQuery, limit: number) {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 200; pages += 1) {
        const page = await repository.listSubscriptions(query, { limit, cursor });
        expect(page.subscriptions.length).toBeLessThanOrEqual(limit);
        ids.push(...page.subscriptions.map((listed) => listed.subscription_id));
        cursor = page.cursor;
        if (cursor === undefined) break;
      }
      expect(new Set(ids).size).toBe(ids.length);
      return ids.sort();
    }
    const customerOf = (external_id?: string) => ({
      name: "Ada Lovelace",
      email: "ada@example.com",
      ...(external_id === undefined ? {} : { external_id }),
    });

    it("lists by status, by customer, by both and all, a page at a time, from what each subscription holds now", async () => {
      const repository = await fresh();
      const seeds = [
        subscription("sub-l1", { customer: customerOf("acct_a") }),
        subscription("sub-l2", { customer: customerOf("acct_a"), created_at: LATER }),
        subscription("sub-l3"),
        subscription("sub-l4", { status: "past_due", customer: customerOf("acct_a") }),
        subscription("sub-l5", { status: "canceled", customer: customerOf("acct_b") }),
      ];
      for (const seed of seeds) await repository.createSubscription(seed);

      expect(await everyPage(repository, { status: "active" }, 2)).toEqual(["sub-l1", "sub-l2", "sub-l3"]);
      expect(await everyPage(repository, { external_id: "acct_a" }, 1)).toEqual([
        "sub-l1",
        "sub-l2",
        "sub-l4",
      ]);
      expect(await everyPage(repository, { status: "active", external_id: "acct_a" }, 5)).toEqual([
        "sub-l1",
        "sub-l2",
      ]);
      expect(await everyPage(repository, {}, 2)).toEqual(["sub-l1", "sub-l2", "sub-l3", "sub-l4", "sub-l5"]);
      const [listed] = (await repository.listSubscriptions({ status: "canceled" }, { limit: 10 }))
        .subscriptions;
      expect(listed).toEqual(seeds[4]);

      // A status change and an edit of external_id move a subscription between listings.
      await repository.updateSubscription("sub-l1", {
        expect: { status: "active" },
        set: { status: "past_due", customer: customerOf("acct_c"), updated_at: LATER },
      });
      expect(await everyPage(repository, { status: "active" }, 10)).toEqual(["sub-l2", "sub-l3"]);
      expect(await everyPage(repository, { status: "past_due" }, 10)).toEqual(["sub-l1", "sub-l4"]);
      expect(await everyPage(repository, { external_id: "acct_a" }, 10)).toEqual(["sub-l2", "sub-l4"]);
      expect(await everyPage(repository, { external_id: "acct_c" }, 10)).toEqual(["sub-l1"]);
      expect(await everyPage(repository, { external_id: "acct_none" }, 10)).toEqual([]);
    });

    it("refuses a cursor it did not issue", async () => {
      const repository = await fresh();
      await expect(
        repository.listSubscriptions({}, { limit: 1, cursor: "bm90LWEtY3Vyc29y" }),
      ).rejects.toThrow(InvalidCursorError);
    });

    it("lists the plans of the active and past-due subscriptions, as each plan stands now", async () => {
      const repository = await fresh();
      const seats = { amount: "10.00", currency: "USD", interval_months: 1, quantity: 3 };
      const yearly = { amount: "99000", currency: "KRW", interval_months: 12 };
      await repository.createSubscription(subscription("sub-p1"));
      await repository.createSubscription(subscription("sub-p2", { status: "past_due", plan: yearly }));
      await repository.createSubscription(subscription("sub-p3", { status: "paused" }));
      await repository.createSubscription(subscription("sub-p4", { status: "canceled" }));
      await repository.createSubscription(subscription("sub-p5", { status: "trialing" }));
      const byAmount = (plans: readonly PaidPlan[]) =>
        [...plans].sort((a, b) => a.amount.localeCompare(b.amount));
      expect(byAmount((await collect(repository.listPayingPlans())).items)).toEqual([
        { amount: "19.90", currency: "USD", interval_months: 1 },
        { amount: "99000", currency: "KRW", interval_months: 12 },
      ]);

      // A change of plan, and the status, move what is listed.
      await repository.updateSubscription("sub-p1", {
        expect: { status: "active" },
        set: { plan: seats, updated_at: LATER },
      });
      await repository.updateSubscription("sub-p2", {
        expect: { status: "past_due" },
        set: { status: "canceled", updated_at: LATER },
      });
      await repository.updateSubscription("sub-p3", {
        expect: { status: "paused" },
        set: { status: "active", updated_at: LATER },
      });
      expect(byAmount((await collect(repository.listPayingPlans())).items)).toEqual([
        seats,
        { amount: "19.90", currency: "USD", interval_months: 1 },
      ]);
    });
  });

  describe("event log", () => {
    const logged = (id: string, subscriptionId: string, at: string): OutboxEvent => ({
      type: "subscription.past_due",
      subscription_id: subscriptionId,
      reason: "payment_declined",
      event_id: id,
      occurred_at: at,
    });
    const ids = (events: readonly OutboxEvent[]) => events.map((event) => event.event_id);
    const DAY_2 = "2030-01-02T23:59:59.999Z";
    const DAY_3 = "2030-01-03T00:00:00.000Z";

    it("keeps each event once however often logged, and lists a subscription's in the order they occurred", async () => {
      const repository = await fresh({ pageSize: 2 });
      await repository.createSubscription(subscription("sub-log"));
      const key = { subscription_id: "sub-log", period: 1, attempt: 0 };
      await repository.claimAttempt(attempt(key));
      const events = [
        logged("evt-c", "sub-log", DAY_3),
        logged("evt-a", "sub-log", CREATED),
        logged("evt-b", "sub-log", DAY_2),
        logged("evt-x", "sub-other", LATER),
      ];
      await repository.logEvents(events);
      await repository.logEvents(events.slice(0, 2));
      const { items } = await collect(repository.readEventLog({ subscription_id: "sub-log" }));
      expect(items).toEqual([events[1], events[2], events[0]]);
      // The subscription's other items are not the log's, nor the log theirs.
      expect(await repository.listAttempts("sub-log")).toEqual([attempt(key)]);
      expect((await repository.getSubscription("sub-log"))?.subscription_id).toBe("sub-log");
      expect((await collect(repository.readEventLog({ subscription_id: "sub-none" }))).items).toEqual([]);
    });

    it("lists the events that occurred in [from, to), across days and subscriptions", async () => {
      const repository = await fresh({ pageSize: 2 });
      await repository.logEvents([
        logged("evt-1", "sub-log-a", CREATED),
        logged("evt-2", "sub-log-b", LATER),
        logged("evt-3", "sub-log-c", DAY_2),
        logged("evt-4", "sub-log-a", DAY_3),
      ]);
      const between = async (from: string, to: string) =>
        ids(
          (await collect(repository.readEventLog({ from: new Date(from), to: new Date(to) }))).items,
        ).sort();
      expect(await between(CREATED, DAY_3)).toEqual(["evt-1", "evt-2", "evt-3"]);
      expect(await between(LATER, "2030-01-04T00:00:00.000Z")).toEqual(["evt-2", "evt-3", "evt-4"]);
      expect(await between(minutes(CREATED, 1), LATER)).toEqual([]);
    });
  });
}
