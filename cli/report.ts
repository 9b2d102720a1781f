import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { z } from "zod";
import { EVENT_LOG_RETENTION_DAYS } from "../functions/adapters/dynamodb/dynamodb-event-log";
import { type PayoutsReport, payoutsReport } from "../functions/core/reports/payouts";
import { type RevenueMonth, revenueReport } from "../functions/core/reports/revenue";
import { CliError, type CommandRunner, emit } from "./cli-io";
import { DAY_FORMS, dayRange, formatDay, parseInstantOption } from "./dates";
import { periodOf } from "./reconcile";
import { revenueChartSvg } from "./revenue-chart";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

const revenueOptions = z.object({ from: z.string(), to: z.string(), chart: z.string().optional() });

/** The months' figures as a table: amounts as the API writes them, the churn rate in percent. */
function revenueTable(months: readonly RevenueMonth[]): string {
  return formatTable(
    ["MONTH", "CURRENCY", "MRR", "NEW", "EXPANSION", "CONTRACTION", "CHURNED", "ACTIVE", "CHURN"],
    months.map((month) => [
      month.month,
      month.currency,
      month.mrr,
      month.new,
      month.expansion,
      month.contraction,
      month.churned,
      String(month.active),
      `${(month.churn_rate * 100).toFixed(1)}%`,
    ]),
  );
}

/** The payouts, then each currency's settled totals, then what is left to reconcile. */
function payoutLines(report: PayoutsReport): string[] {
  const table = formatTable(
    ["PAYOUT", "CURRENCY", "STATUS", "MOVEMENTS", "GROSS", "FEES", "VAT", "ADJUST", "NET", "DEPOSIT"],
    report.payouts.map((payout) => [
      formatDay(payout.remittance_date),
      payout.currency,
      payout.status,
      String(payout.movements),
      payout.gross,
      payout.fees,
      payout.vat,
      payout.adjust,
      payout.net,
      `${payout.deposit_amount} ${payout.deposit_currency}`,
    ]),
  );
  const totals = formatTable(
    ["CURRENCY", "PAYOUTS", "MOVEMENTS", "GROSS", "FEES", "VAT", "ADJUST", "NET"],
    report.totals.map((total) => [
      total.currency,
      String(total.remittances),
      String(total.movements),
      total.gross,
      total.fees,
      total.vat,
      total.adjust,
      total.net,
    ]),
  );
  const period = `${formatDay(report.from)} to ${formatDay(report.to)} (gateway days, KST)`;
  return [
    ...(report.payouts.length === 0
      ? [`no payouts kept from ${period}`]
      : [table, `settled, ${period}:`, totals]),
    `${report.mismatches} settlement mismatches found by these days' reconciliations`,
    ...(report.unreconciled.length === 0
      ? []
      : [
          `${report.unreconciled.length} days not reconciled yet (${formatDay(report.unreconciled[0] ?? "")} …): npx billing reconcile --from ${formatDay(report.unreconciled[0] ?? "")} --to ${formatDay(report.unreconciled.at(-1) ?? "")}`,
        ]),
  ];
}

/**
 * `report revenue` (README, Revenue report): the months from --from's to --to's, from the event log and the table.
 * `report payouts` (README, Payouts): the payout days reconcile-ledger kept, read from the table.
 */
export function addReportCommands(program: Command, run: CommandRunner): void {
  const report = program.command("report").description("figures for the people who run the business");
  report
    .command("revenue")
    .description(
      "MRR per currency at each month's end (UTC), with new, expansion, contraction and churned MRR, the subscriptions paying and the churn rate",
    )
    .requiredOption("--from <date>", "the first month: a date in it (2027-03-01)")
    .requiredOption("--to <date>", "the last month: a date in it (2027-05-31)")
    .option("--chart <file.svg>", "also write MRR month by month as an SVG chart")
    .action(
      run(async (command, out) => {
        const options = revenueOptions.parse(command.opts());
        const from = new Date(parseInstantOption("--from", options.from));
        const to = new Date(parseInstantOption("--to", options.to));
        if (to < from)
          throw new CliError("--to must not be before --from, e.g. --from 2027-03-01 --to 2027-05-31");
        await withTarget(await resolveTarget(command), async (session) => {
          const months = await revenueReport(await repositoryOf(session), {
            from,
            to,
            retentionDays: EVENT_LOG_RETENTION_DAYS,
          });
          if (options.chart !== undefined) await writeFile(options.chart, revenueChartSvg(months));
          emit(out, { months }, () => [
            revenueTable(months),
            ...(options.chart === undefined ? [] : [`chart: ${options.chart}`]),
          ]);
        });
      }),
    );
  report
    .command("payouts")
    .description(
      "the gateway's payouts reconciliation kept, per remittance date and currency: gross, fees, VAT, adjustments and net; days are the gateway's (Korea time)",
    )
    .option("--from <day>", `first payout day: ${DAY_FORMS}`)
    .option("--to <day>", "last payout day, included (same forms)")
    .action(
      run(async (command, out) => {
        const period = periodOf(command);
        await withTarget(await resolveTarget(command), async (session) => {
          const repository = await repositoryOf(session);
          const kept = await repository.listPayoutDays(period.from, period.to);
          const report = payoutsReport(dayRange(period.from, period.to), kept);
          emit(out, report, () => payoutLines(report));
        });
      }),
    );
}
