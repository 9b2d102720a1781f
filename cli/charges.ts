import type { Command } from "commander";
import type { ChargeView } from "../functions/api/merchant-api-schemas";
import { chargeView } from "../functions/api/views";
import { listCharges } from "../functions/core/charge-list";
import { argumentsOf, CliError, type CommandRunner, emit, orDash } from "./cli-io";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

/** The ledger as a table (charges list, subscriptions show). */
export function chargeTable(charges: readonly ChargeView[]): string {
  return formatTable(
    ["CHARGE", "KIND", "PERIOD", "ATTEMPT", "AMOUNT", "STATUS", "REFUNDED", "TRANSACTION", "CREATED"],
    charges.map((charge) => [
      charge.charge_id,
      charge.kind,
      String(charge.period),
      String(charge.attempt),
      `${charge.amount} ${charge.currency}`,
      charge.status,
      charge.refunded_amount,
      orDash(charge.transaction_id),
      charge.created_at,
    ]),
  );
}

export function addChargesCommands(program: Command, run: CommandRunner): void {
  program
    .command("charges")
    .description("read the ledger")
    .command("list")
    .description("a subscription's charge attempts, oldest first")
    .argument("<subscription-id>", "subscription id")
    .action(
      run(async (command, out) => {
        const [id = ""] = argumentsOf(command);
        await withTarget(await resolveTarget(command), async (session) => {
          const charges = await listCharges(id, { repository: await repositoryOf(session) });
          if (charges === undefined) throw new CliError(`no subscription ${id}`);
          const views = charges.map(chargeView);
          emit(out, { subscription_id: id, charges: views }, () => [chargeTable(views)]);
        });
      }),
    );
}
