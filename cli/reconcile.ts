import type { Command } from "commander";
import { SERVICE_SETS } from "../functions/composition/service-sets";
import { reconcile, reconciliationPeriodSchema } from "../functions/core/reconciliation";
import { fieldOf, GatewayRequestError } from "../functions/gateway/errors";
import { formatTable } from "../local/text-table";
import { CliError, type CommandRunner, emit, orDash } from "./cli-io";
import { resolveTarget, withTarget } from "./target";

/** `reconcile --from --to`: the reconcile-ledger handler's core for those days; exit 1 when anything differs. */
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
          const services = await session.services(SERVICE_SETS.reconciliation);
          const outcome = await reconcile(period.data, services).catch((error: unknown) => {
            // The client checks the request before sending it (e.g. a day over 5 years back): the period is at fault.
            if (error instanceof GatewayRequestError)
              throw new CliError(`the gateway's reconciliation API refuses this period: ${error.message}`);
            throw error;
          });
          if (outcome.kind === "failed") {
            throw new CliError(
              `reconciliation of ${period.data.from}–${period.data.to} failed: ${outcome.reason}`,
            );
          }
          const { report } = outcome;
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
