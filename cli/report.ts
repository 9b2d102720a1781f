import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { z } from "zod";
import { EVENT_LOG_RETENTION_DAYS } from "../functions/adapters/dynamodb-event-log";
import { type RevenueMonth, revenueReport } from "../functions/core/reports/revenue";
import { CliError, type CommandRunner, emit } from "./cli-io";
import { parseInstantOption } from "./dates";
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

/** `report revenue` (README, Revenue report): the months from --from's to --to's, from the event log and the table. */
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
}
