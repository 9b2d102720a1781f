import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import { signedAmount, signedCents } from "../base/money";
import { type PayoutDay, payoutSchema } from "../ports/settlement-store";

// Where the money went (README, Payouts): the payouts reconciliation kept, remittance by remittance, with each
// currency's totals over the days asked, and the days no reconciliation has kept yet.

const totalSchema = lazySchema(() =>
  z.object({
    currency: z.string(),
    remittances: z.number().int(),
    movements: z.number().int(),
    gross: z.string(),
    fees: z.string(),
    vat: z.string(),
    adjust: z.string(),
    net: z.string(),
  }),
);
export type PayoutTotal = z.infer<typeof totalSchema>;

export const payoutsReportSchema = lazySchema(() =>
  z.object({
    from: z.string(),
    to: z.string(),
    /** Oldest first; expected ones are the gateway's forecast of a payout not yet reconciled. */
    payouts: z.array(payoutSchema),
    /** Per currency, of the settled payouts only. */
    totals: z.array(totalSchema),
    /** How many settlement mismatches the days' reconciliations found. */
    mismatches: z.number().int(),
    /** Days (YYYYMMDD) no reconciliation has kept: run `billing reconcile` over them. */
    unreconciled: z.array(z.string()),
  }),
);
export type PayoutsReport = z.infer<typeof payoutsReportSchema>;

const AMOUNTS = ["gross", "fees", "vat", "adjust", "net"] as const;

/** Each currency's settled payouts added up, in currency order. */
function totalsOf(payouts: readonly z.infer<typeof payoutSchema>[]): PayoutTotal[] {
  const byCurrency = new Map<string, { remittances: number; movements: number; cents: number[] }>();
  for (const payout of payouts) {
    if (payout.status !== "settled") continue;
    const total = byCurrency.get(payout.currency) ?? {
      remittances: 0,
      movements: 0,
      cents: AMOUNTS.map(() => 0),
    };
    total.remittances += 1;
    total.movements += payout.movements;
    total.cents = AMOUNTS.map((name, index) => (total.cents[index] ?? 0) + signedCents(payout[name]));
    byCurrency.set(payout.currency, total);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, total]) => ({
      currency,
      remittances: total.remittances,
      movements: total.movements,
      ...(Object.fromEntries(
        AMOUNTS.map((name, index) => [name, signedAmount(total.cents[index] ?? 0, currency)]),
      ) as Record<(typeof AMOUNTS)[number], string>),
    }));
}

/** The report of `days` (every gateway day asked, YYYYMMDD, in order) from the payout days kept over them. */
export function payoutsReport(days: readonly string[], kept: readonly PayoutDay[]): PayoutsReport {
  const keptDays = new Set(kept.map((day) => day.remittance_date));
  const payouts = kept.flatMap((day) => day.payouts);
  return {
    from: days[0] ?? "",
    to: days.at(-1) ?? "",
    payouts,
    totals: totalsOf(payouts),
    mismatches: kept.reduce((sum, day) => sum + day.mismatches, 0),
    unreconciled: days.filter((day) => !keptDays.has(day)),
  };
}
