import type { Command } from "commander";
import { z } from "zod";
import { type Mismatch, reconciliationPeriodSchema } from "../functions/core/refunds/reconciliation";
import {
  type ReconciliationRun,
  reconciliationRunSchema,
  type SettlementMismatch,
} from "../functions/core/refunds/settlements";
import { CliError, type CommandRunner, emit, orDash } from "./cli-io";
import { DAY_FORMS, dayRange, formatDay, formatRecordTime, parseDayOption } from "./dates";
import { invokeFunction } from "./invoke";
import { withProgress } from "./progress";
import { resolveTarget, withTarget } from "./target";
import { formatTable, wrapLine } from "./text-table";

/** What differs, in words: the amounts and status the kind is about. */
function differenceOf(mismatch: Mismatch): string {
  const gateway = `gateway ${orDash(mismatch.gateway_amount)}`;
  const ledger = `ledger ${orDash(mismatch.ledger_amount)}`;
  switch (mismatch.kind) {
    case "missing_at_gateway":
      return ledger;
    case "missing_here":
      return gateway;
    case "amount_differs":
      return `${gateway}, ${ledger}`;
    case "status_differs":
      return mismatch.ledger_status === "succeeded"
        ? `${ledger} succeeded on another transaction`
        : `${ledger} ${orDash(mismatch.ledger_status)}`;
  }
}

/** The mismatches as a table: the gateway's times (Korea) and ours in the one form, what differs last (wrapped). */
export function mismatchTable(mismatches: readonly Mismatch[]): string {
  return formatTable(
    ["AT", "LINE", "KIND", "ORDER", "TRANSACTION", { title: "DIFFERENCE", fit: "wrap" }],
    mismatches.map((mismatch) => [
      formatRecordTime(mismatch.at),
      mismatch.line,
      mismatch.kind,
      mismatch.order_id,
      orDash(mismatch.transaction_id),
      differenceOf(mismatch),
    ]),
  );
}

const PERIOD_EXAMPLE = "--from 2027-03-01 --to 2027-03-31";

const periodOptions = z.object({ from: z.string().optional(), to: z.string().optional() });

/** --from and --to as the gateway days they name, or a CliError saying what to type. */
export function periodOf(command: Command): { readonly from: string; readonly to: string } {
  const { from, to } = periodOptions.parse(command.opts());
  if (from === undefined || to === undefined)
    throw new CliError(
      `name the days: --from and --to (${DAY_FORMS}, both included), e.g. ${PERIOD_EXAMPLE}`,
    );
  const period = { from: parseDayOption("--from", from), to: parseDayOption("--to", to) };
  const checked = reconciliationPeriodSchema.safeParse(period, { reportInput: false });
  if (!checked.success)
    throw new CliError(
      `--from ${from} is after --to ${to}: give the earlier day first, e.g. ${PERIOD_EXAMPLE}`,
    );
  return checked.data;
}

/** What a payout differs in, in words. */
function settlementDifferenceOf(mismatch: SettlementMismatch): string {
  const gateway = `gateway ${orDash(mismatch.gateway_amount)}`;
  const ledger = `ledger ${orDash(mismatch.ledger_amount)}`;
  switch (mismatch.kind) {
    case "missing_here":
      return `${gateway}, no such line here`;
    case "amount_differs":
      return `${gateway}, ${ledger}`;
    case "status_differs":
      return mismatch.line === "chargeback"
        ? `${gateway}, the charge is not disputed here (${orDash(mismatch.ledger_status)})`
        : `${ledger} ${orDash(mismatch.ledger_status)}`;
    case "fees_differ":
      return `paid out ${orDash(mismatch.gateway_amount)}, gross less fees and VAT ${orDash(mismatch.ledger_amount)}`;
    case "total_differs":
      return `stated ${orDash(mismatch.gateway_amount)}, its movements and adjustment add up to ${orDash(mismatch.ledger_amount)} (or the count differs)`;
    case "settled_twice":
      return `${gateway}, paid out by an earlier remittance already`;
    case "unsettled":
      return `${ledger}, in no payout since`;
  }
}

/** The settlement mismatches as a table: the remittance they were found in (none for a line never paid out). */
export function settlementMismatchTable(mismatches: readonly SettlementMismatch[]): string {
  return formatTable(
    ["PAYOUT", "LINE", "KIND", "ORDER", "TRANSACTION", { title: "DIFFERENCE", fit: "wrap" }],
    mismatches.map((mismatch) => [
      mismatch.remittance_date === undefined ? "-" : formatDay(mismatch.remittance_date),
      mismatch.line,
      mismatch.kind,
      orDash(mismatch.order_id),
      orDash(mismatch.transaction_id),
      `${mismatch.currency}: ${settlementDifferenceOf(mismatch)}`,
    ]),
  );
}

const countOf = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** Both kinds: the transactions' and the payouts'. */
const mismatchCount = (report: ReconciliationRun) =>
  report.mismatches.length + report.settlement_mismatches.length;

/** The reports of consecutive days as one report of the period. */
function mergeReports(
  period: { readonly from: string; readonly to: string },
  reports: readonly ReconciliationRun[],
): ReconciliationRun {
  const sum = (field: "gateway_records" | "ledger_lines" | "matched") =>
    reports.reduce((total, report) => total + report[field], 0);
  return {
    ...period,
    gateway_records: sum("gateway_records"),
    ledger_lines: sum("ledger_lines"),
    matched: sum("matched"),
    mismatches: reports.flatMap((report) => report.mismatches),
    payouts: reports.flatMap((report) => report.payouts),
    settlement_mismatches: reports.flatMap((report) => report.settlement_mismatches),
    chargebacks_recorded: reports.flatMap((report) => report.chargebacks_recorded),
    notices: [...new Set(reports.flatMap((report) => report.notices))],
  };
}

/**
 * `reconcile --from --to`: the reconcile-ledger function invoked once per gateway day, as its daily schedule runs it
 * (each invocation stays far inside the function's timeout, and the bar counts the days); exit 1 when anything
 * differs.
 */
export function addReconcileCommand(program: Command, run: CommandRunner): void {
  program
    .command("reconcile")
    .description(
      "compare the gateway's transactions and payouts with the ledger, day by day; days are the gateway's (Korea time, UTC+9)",
    )
    .option("--from <day>", `first day: ${DAY_FORMS}`)
    .option("--to <day>", "last day, included (same forms)")
    .action(
      run(async (command, out) => {
        const period = periodOf(command);
        const days = dayRange(period.from, period.to);
        await withTarget(await resolveTarget(command), async (session) => {
          const reports = await withProgress(
            out.io,
            { label: "reconciling", total: days.length },
            async (progress) => {
              const done: ReconciliationRun[] = [];
              for (const [index, day] of days.entries()) {
                const report = await invokeFunction(
                  session,
                  "reconcile-ledger",
                  { from: day, to: day },
                  reconciliationRunSchema,
                );
                done.push(report);
                const mismatches = done.reduce((count, each) => count + mismatchCount(each), 0);
                progress.update(index + 1, `${formatDay(day)}, ${mismatches} mismatches so far`);
                const quiet =
                  report.gateway_records +
                    report.ledger_lines +
                    report.payouts.length +
                    mismatchCount(report) ===
                  0;
                if (days.length > 1 && !quiet)
                  progress.note(
                    `${formatDay(day)}: ${report.gateway_records} gateway records, ${report.ledger_lines} ledger lines, ${countOf(report.payouts.length, "payout")}, ${mismatchCount(report)} mismatches (day ${index + 1} of ${days.length})`,
                  );
              }
              return done;
            },
          );
          const report = mergeReports(period, reports);
          if (mismatchCount(report) > 0) out.fail();
          const settlementMismatches = report.settlement_mismatches;
          emit(out, report, () => [
            wrapLine(
              `reconciled ${formatDay(report.from)} to ${formatDay(report.to)} (gateway days, KST): ${report.gateway_records} gateway records, ${report.ledger_lines} ledger lines, ${report.matched} matched, ${report.mismatches.length} mismatches`,
            ),
            ...(report.mismatches.length === 0 ? [] : [mismatchTable(report.mismatches)]),
            wrapLine(
              `payouts: ${countOf(report.payouts.length, "remittance")}, ${settlementMismatches.length} mismatches (npx billing report payouts lists them)`,
            ),
            ...(settlementMismatches.length === 0 ? [] : [settlementMismatchTable(settlementMismatches)]),
            ...report.chargebacks_recorded.map(
              (orderId) => `chargeback deduction recorded on ${orderId} (no webhook had brought it)`,
            ),
            ...report.notices.map((notice) => `gateway notice: ${notice}`),
          ]);
        });
      }),
    );
}
