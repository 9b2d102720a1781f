import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";

// What reconciliation keeps of the gateway's payouts (README, Payouts): each movement's settlement on its ledger
// line's subscription, and each remittance date's payouts.

export type SettledKind = SettlementRecord["kind"];

/** A payout as reported and kept: per remittance date and currency, amounts signed in that currency. */
export const payoutSchema = lazySchema(() =>
  z
    .object({
      remittance_date: z.string(),
      currency: z.string(),
      /** settled: the gateway's settlement; expected: its forecast, until the settlement replaces it. */
      status: z.enum(["settled", "expected"]),
      movements: z.number().int(),
      gross: z.string(),
      fees: z.string(),
      vat: z.string(),
      adjust: z.string(),
      net: z.string(),
      deposit_currency: z.string(),
      deposit_amount: z.string(),
    })
    .readonly(),
);
export type Payout = z.infer<typeof payoutSchema>;

/** A remittance date's payouts as kept, with how many settlement mismatches its reconciliation found. */
export const payoutDaySchema = lazySchema(() =>
  z
    .object({
      remittance_date: z.string(),
      status: z.enum(["settled", "expected"]),
      payouts: z.array(payoutSchema).readonly(),
      mismatches: z.number().int(),
      reconciled_at: z.string(),
    })
    .readonly(),
);
export type PayoutDay = z.infer<typeof payoutDaySchema>;

/** What we keep of a movement paid out: on its ledger line's subscription, once per gateway transaction. */
export const settlementRecordSchema = lazySchema(() =>
  z.object({
    subscription_id: z.string(),
    transaction_id: z.string(),
    kind: z.enum(["sale", "refund", "chargeback"]),
    order_id: z.string(),
    refund_id: z.string().optional(),
    remittance_date: z.string(),
    /** The remittance's currency, in which the amounts are. */
    currency: z.string(),
    gross: z.string(),
    /** Signed: deducted positive, given back negative. */
    fees: z.string(),
    vat: z.string(),
    net: z.string(),
    recorded_at: z.string(),
  }),
);
export type SettlementRecord = z.infer<typeof settlementRecordSchema>;

export interface SettlementStore {
  /** Keeps a movement's settlement once: `recorded`, or the remittance date that holds it already. */
  recordSettlement(
    record: SettlementRecord,
  ): Promise<{ readonly recorded: true } | { readonly recorded: false; readonly remittance_date: string }>;
  /** A subscription's movements paid out, by transaction. */
  listSettlements(subscriptionId: string): Promise<readonly SettlementRecord[]>;
  /** The transactions of these ledger lines that have a settlement kept. */
  settledTransactions(
    lines: readonly { readonly subscription_id: string; readonly transaction_id: string }[],
  ): Promise<ReadonlySet<string>>;
  /** Keeps a date's payouts; an expected day never replaces a settled one. */
  putPayoutDay(day: PayoutDay): Promise<void>;
  /** The kept payout days from `from` to `to` (YYYYMMDD, both included), oldest first. */
  listPayoutDays(from: string, to: string): Promise<readonly PayoutDay[]>;
}
