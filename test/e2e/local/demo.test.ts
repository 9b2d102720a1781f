import { describe, expect, it } from "vitest";
import type { DemoResult } from "../../../local/demo/run-demo";

// `npm run demo` in-process at a small size: the whole scripted month on a fresh local stack, faults on, and the
// invariants (ledger equal to the gateway's, no double charge, every subscription explained) holding.

describe("npm run demo", () => {
  it("runs a month for 20 customers with every invariant holding", async () => {
    // Read by the handlers' logger when their modules load: quiet, as bin/demo.ts makes them.
    process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
    process.env.POWERTOOLS_METRICS_DISABLED = "true";
    const { runDemo } = await import("../../../local/demo/run-demo");
    const { createProgress } = await import("../../../local/demo/progress");
    const lines: string[] = [];
    const result: DemoResult = await runDemo({
      customers: 20,
      seed: 7,
      progress: createProgress({ write: (line) => lines.push(line), tty: false }),
    });

    expect(result.violations).toEqual([]);
    expect(result.exitCode).toBe(0);
    const { summary } = result;
    expect(summary.customers).toBe(20);
    expect(summary.charged).toBeGreaterThan(20);
    expect(summary.declined).toBeGreaterThan(0);
    expect(summary.signupDeclines).toBeGreaterThanOrEqual(1);
    expect(summary.canceled).toBeGreaterThanOrEqual(1);
    // The script's two refunds, and each trial's verification refunded at once.
    expect(summary.refunds).toBe(2 + (summary.lifecycle.get("started with a trial") ?? 0));
    // The lifecycle customers (one of each here) each end where their change leads (checked as violations).
    expect([...summary.lifecycle.values()].reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(3);
    expect(summary.faults.error + summary.faults.timeoutAfterCommit).toBeGreaterThan(0);
    // Every sign-up that was not declined at once is a subscription in one of four states: no trial is left, no
    // pause outlasts the month.
    expect(summary.active + summary.pastDue + summary.canceled + summary.pending).toBe(
      summary.customers - summary.signupDeclines,
    );
    expect([...summary.revenue.keys()].length).toBeGreaterThan(0);

    // The revenue report of the demo's last month equals what the subscriptions at its end add up to, computed here
    // from their views alone: each paying one (active, past due) at its plan's amount × seats ÷ months a period lasts.
    const lastMonth = result.revenue.at(-1)?.month ?? "";
    const expected = new Map<string, { cents: number; active: number }>();
    for (const subscription of result.subscriptions) {
      if (subscription.status !== "active" && subscription.status !== "past_due") continue;
      const { amount, currency, quantity, interval_months } = subscription.plan;
      const entry = expected.get(currency) ?? { cents: 0, active: 0 };
      entry.cents += (Math.round(Number(amount) * 100) * quantity) / interval_months;
      entry.active += 1;
      expected.set(currency, entry);
    }
    const reported = result.revenue.filter((month) => month.month === lastMonth);
    expect(reported.map((month) => month.currency).sort()).toEqual([...expected.keys()].sort());
    for (const month of reported) {
      const entry = expected.get(month.currency);
      expect(Number(month.mrr), month.currency).toBeCloseTo((entry?.cents ?? 0) / 100, 2);
      expect(month.active, month.currency).toBe(entry?.active);
    }
    // Each month's MRR is the one before it moved by its new, expansion, contraction and churned MRR.
    for (const currency of expected.keys()) {
      let before = 0;
      for (const month of result.revenue.filter((each) => each.currency === currency)) {
        const moved =
          Number(month.new) + Number(month.expansion) - Number(month.contraction) - Number(month.churned);
        expect(Number(month.mrr), `${currency} ${month.month}`).toBeCloseTo(before + moved, 2);
        before = Number(month.mrr);
      }
    }
    expect(lines.some((line) => line.startsWith(`MRR ${lastMonth}: `))).toBe(true);

    // The month reconciled with the gateway's own reports, transactions and payouts alike, with 0 mismatches; each
    // payout is its movements less the gateway's fees and their VAT, with the adjustments it made.
    const { run, payouts } = result.reconciliation;
    expect(run.mismatches).toEqual([]);
    expect(run.settlement_mismatches).toEqual([]);
    expect(payouts.payouts.length).toBeGreaterThan(2);
    expect(payouts.mismatches).toBe(0);
    const cents = (amount: string) => Math.round(Number(amount) * 100);
    for (const payout of payouts.payouts)
      expect(cents(payout.net), payout.remittance_date).toBe(
        cents(payout.gross) - cents(payout.fees) - cents(payout.vat) + cents(payout.adjust),
      );
    // The sandbox's fees: 3.4 % of each sale, rounded per sale, so within a cent per movement of 3.4 % of the sales.
    for (const total of payouts.totals) expect(cents(total.fees)).toBeGreaterThan(0);
    expect(lines.some((line) => /^paid out \d+(\.\d+)? [A-Z]{3} in \d+ payouts: /.test(line))).toBe(true);

    // What was printed: the seed, plain progress lines (no terminal here), the table, the reconciliation.
    expect(lines[0]).toBe("demo: 20 customers, seed 7, from 2027-01-15T09:00:00.000Z");
    expect(lines).toContain("sign-ups: 20/20");
    expect(lines).toContain(
      `reconciliation: ${summary.charged} succeeded charges here, ${summary.charged} sales at the gateway; ` +
        "0 mismatches, 0 double charges",
    );
    expect(lines.at(-1)).toBe("invariants: OK");
  }, 150_000);
});
