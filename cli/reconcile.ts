import type { Command } from "commander";
import { reconciliationPeriodSchema, reconciliationReportSchema } from "../functions/core/reconciliation";
import { fieldOf } from "../functions/gateway/errors";
import { CliError, type CommandRunner, emit, orDash } from "./cli-io";
import { invokeFunction } from "./invoke";
import { resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

/** `reconcile --from --to`: the reconcile-ledger function invoked for those days; exit 1 when anything differs. */
export function addReconcileCommand(program: Command, run: CommandRunner): void {
  program
    .command("reconcile")
    .description("compare the gateway's transactions with the ledger over UTC days (both inclusive)")
    .requiredOption("--from <YYYYMMDD>", "first day")
    .requiredOption("--to <YYYYMMDD>", "last day")
    .action(
      run(async (command, out) => {
        const period = reconciliationPeriodSchema.safeParse(command.opts(), { reportInput: false });
        if (!period.success) {
          const [issue] = period.error.issues;
          throw new CliError(issue ? `--${fieldOf(issue)} ${issue.message}` : "invalid period");
        }
        await withTarget(await resolveTarget(command), async (session) => {
          const report = await invokeFunction(
            session,
            "reconcile-ledger",
            period.data,
            reconciliationReportSchema,
          );
          if (report.mismatches.length > 0) out.fail();
          emit(out, report, () => [
            `reconciled ${report.from}–${report.to}: ${report.gateway_records} gateway records, ${report.ledger_lines} ledger lines, ${report.matched} matched, ${report.mismatches.length} mismatches`,
            ...(report.mismatches.length === 0
              ? []
              : [
                  formatTable(
                    ["KIND", "LINE", "ORDER", "TRANSACTION", "GATEWAY", "LEDGER", "STATUS", "AT"],
                    report.mismatches.map((mismatch) => [
                      mismatch.kind,
                      mismatch.line,
                      mismatch.order_id,
                      orDash(mismatch.transaction_id),
                      orDash(mismatch.gateway_amount),
                      orDash(mismatch.ledger_amount),
                      orDash(mismatch.ledger_status),
                      mismatch.at,
                    ]),
                  ),
                ]),
            ...[...new Set(report.notices)].map((notice) => `gateway notice: ${notice}`),
          ]);
        });
      }),
    );
}
