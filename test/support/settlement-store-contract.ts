import { describe, expect, it } from "vitest";
import type {
  PayoutDay,
  SettlementRecord,
  SettlementStore,
} from "../../functions/core/ports/settlement-store";

// What every SettlementStore must do (the DynamoDB repository's and the in-memory one's): a movement's settlement is
// kept once and names the remittance that kept it; ledger lines are looked up by subscription and transaction; a
// forecast never replaces a settled day; days list oldest first within the range asked.

function settlement(overrides: Partial<SettlementRecord> = {}): SettlementRecord {
  return {
    subscription_id: "sub-1",
    transaction_id: "T1",
    kind: "sale",
    order_id: "sub-1-0-0",
    remittance_date: "20270312",
    currency: "USD",
    gross: "19.90",
    fees: "0.68",
    vat: "0.07",
    net: "19.15",
    recorded_at: "2027-03-13T03:30:00.000Z",
    ...overrides,
  };
}

function payoutDay(date: string, overrides: Partial<PayoutDay> = {}): PayoutDay {
  return {
    remittance_date: date,
    status: "settled",
    payouts: [
      {
        remittance_date: date,
        currency: "USD",
        status: overrides.status ?? "settled",
        movements: 1,
        gross: "19.90",
        fees: "0.68",
        vat: "0.07",
        adjust: "0.00",
        net: "19.15",
        deposit_currency: "USD",
        deposit_amount: "19.15",
      },
    ],
    mismatches: 0,
    reconciled_at: "2027-03-13T03:30:00.000Z",
    ...overrides,
  };
}

export function describeSettlementStoreContract(fresh: () => Promise<SettlementStore>): void {
  describe("settlements", () => {
    it("keeps a movement's settlement once, naming the remittance that kept it", async () => {
      const store = await fresh();
      expect(await store.recordSettlement(settlement())).toEqual({ recorded: true });
      expect(await store.recordSettlement(settlement({ remittance_date: "20270314" }))).toEqual({
        recorded: false,
        remittance_date: "20270312",
      });
    });

    it("lists a subscription's settlements, by transaction", async () => {
      const store = await fresh();
      await store.recordSettlement(settlement({ transaction_id: "T2" }));
      await store.recordSettlement(settlement());
      await store.recordSettlement(settlement({ subscription_id: "sub-2" }));
      expect((await store.listSettlements("sub-1")).map((each) => each.transaction_id)).toEqual(["T1", "T2"]);
      expect(await store.listSettlements("sub-1")).toContainEqual(settlement());
      expect(await store.listSettlements("sub-3")).toEqual([]);
    });

    it("finds the ledger lines paid out, by subscription and transaction", async () => {
      const store = await fresh();
      await store.recordSettlement(settlement());
      await store.recordSettlement(settlement({ subscription_id: "sub-2", transaction_id: "T2" }));
      const lines = [
        { subscription_id: "sub-1", transaction_id: "T1" },
        { subscription_id: "sub-2", transaction_id: "T2" },
        { subscription_id: "sub-1", transaction_id: "T2" },
        { subscription_id: "sub-3", transaction_id: "T3" },
      ];
      expect([...(await store.settledTransactions(lines))].sort()).toEqual(["T1", "T2"]);
      // More than one batch of keys.
      const many = Array.from({ length: 150 }, (_, n) => ({
        subscription_id: "sub-1",
        transaction_id: `X${n}`,
      }));
      expect(await store.settledTransactions([...many, ...lines.slice(0, 1)])).toEqual(new Set(["T1"]));
    });

    it("keeps payout days: a forecast never replaces the settlement, the settlement replaces its forecast", async () => {
      const store = await fresh();
      await store.putPayoutDay(payoutDay("20270313", { status: "expected" }));
      await store.putPayoutDay(payoutDay("20270312"));
      await store.putPayoutDay(payoutDay("20270312", { status: "expected", mismatches: 9 }));
      await store.putPayoutDay(payoutDay("20270311", { mismatches: 1 }));
      await store.putPayoutDay(payoutDay("20270311", { mismatches: 0 }));
      await store.putPayoutDay(payoutDay("20270401"));
      const days = await store.listPayoutDays("20270311", "20270331");
      expect(days.map((day) => [day.remittance_date, day.status, day.mismatches])).toEqual([
        ["20270311", "settled", 0],
        ["20270312", "settled", 0],
        ["20270313", "expected", 0],
      ]);
      expect(days[1]).toEqual(payoutDay("20270312"));
    });
  });
}
